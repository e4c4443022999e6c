package dev.gitopshq.activities.render;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.git.RepoPaths;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Checks uploaded Helm chart archives (.tgz) and unpacks them safely.
 *
 * <p>An archive is refused, with a reason the uploader understands, when it is not a
 * gzip-compressed tar file; is larger than {@value #MAX_COMPRESSED_BYTES} bytes compressed or
 * {@value #MAX_UNCOMPRESSED_BYTES} bytes unpacked, or has more than {@value #MAX_ENTRIES} entries;
 * has an entry whose path breaks {@link RepoPaths} or lies outside one top-level chart directory,
 * or an entry that is not a plain file or directory (symbolic and hard links, devices, FIFOs);
 * lacks {@code <chart>/Chart.yaml}; has a Chart.yaml that is not YAML, lacks {@code name} or {@code
 * version}, has an {@code apiVersion} other than {@code v1}/{@code v2} or a version that is not
 * SemVer 2; is a library chart; or does not load in Helm itself, including a template that does not
 * parse or a dependency missing from {@code charts/} (Helm's error is the reason).
 *
 * <p>The structural checks run on the bytes in memory, before anything touches the disk, so a
 * hostile archive never gets to create a file.
 */
public final class ChartArchive {
  /** The largest archive accepted: 10 MiB. */
  public static final long MAX_COMPRESSED_BYTES = 10L * 1024 * 1024;

  /** The most an archive may unpack to (tar headers included): 50 MiB. */
  public static final long MAX_UNCOMPRESSED_BYTES = 50L * 1024 * 1024;

  /** The most entries (files and directories) an archive may hold. */
  public static final int MAX_ENTRIES = 5000;

  /** SemVer 2.0.0, the expression published at semver.org. */
  static final Pattern SEMVER =
      Pattern.compile(
          "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)"
              + "(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
              + "(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$");

  private static final ObjectMapper YAML = new ObjectMapper(Yaml.boundedFactory());

  private ChartArchive() {}

  /**
   * What an accepted archive holds.
   *
   * @param appVersion null when Chart.yaml has none
   * @param description null when Chart.yaml has none
   * @param digest SHA-256 of the archive bytes, lowercase hex
   */
  public record Info(
      String name, String version, String appVersion, String description, String digest) {}

  /**
   * Checks an archive, reads its Chart.yaml and makes sure Helm can load it.
   *
   * @throws InvalidChartException with the reason it is refused
   */
  public static Info inspect(byte[] archive) {
    Contents contents = read(archive);
    Info info = contents.info(sha256(archive));
    String lookup = lookupUse(contents, 0);
    if (lookup != null) {
      throw new InvalidChartException(lookupMessage(lookup));
    }
    helmLoads(archive);
    return info;
  }

  /**
   * Where a chart (or one of its subcharts in {@code charts/}) calls Helm's {@code lookup}, or null
   * when none does. The hub renders charts without access to any cluster, and {@code lookup} is how
   * a template reads one, so such charts are refused at upload and at render.
   */
  public static String lookupUse(byte[] archive) {
    return lookupUse(read(archive), 0);
  }

  /**
   * The texts of the chart's {@code crds/} files, its subcharts' included: Helm installs them
   * before the templates, and the scope of the custom kinds the templates use is written there.
   */
  static List<String> crdTexts(byte[] archive) {
    List<String> texts = new ArrayList<>();
    crdTexts(read(archive), 0, texts);
    return texts;
  }

  private static void crdTexts(Contents contents, int depth, List<String> texts) {
    for (Map.Entry<String, byte[]> f : contents.files.entrySet()) {
      String path = f.getKey();
      if (path.contains("/crds/")
          && (path.endsWith(".yaml") || path.endsWith(".yml") || path.endsWith(".json"))) {
        texts.add(new String(f.getValue(), StandardCharsets.UTF_8));
      } else if (depth < 4 && path.contains("/charts/") && path.endsWith(".tgz")) {
        crdTexts(read(f.getValue()), depth + 1, texts);
      }
    }
  }

  static String lookupMessage(String where) {
    return where
        + " calls lookup, which reads a live cluster; the hub renders charts without access to"
        + " any cluster, so charts may not use lookup";
  }

  /** A template action ({@code {{ ... }}}) and, in it, the function {@code lookup}. */
  private static final Pattern ACTION = Pattern.compile("\\{\\{(.*?)}}", Pattern.DOTALL);

  private static final Pattern LOOKUP =
      Pattern.compile("(?<![A-Za-z0-9_.$])lookup(?![A-Za-z0-9_])");

  private static String lookupUse(Contents contents, int depth) {
    for (Map.Entry<String, byte[]> f : contents.files.entrySet()) {
      String path = f.getKey();
      if (path.contains("/templates/")) {
        Matcher action = ACTION.matcher(new String(f.getValue(), StandardCharsets.UTF_8));
        while (action.find()) {
          if (LOOKUP.matcher(action.group(1)).find()) {
            return path;
          }
        }
      } else if (depth < 4 && path.contains("/charts/") && path.endsWith(".tgz")) {
        String nested = lookupUse(read(f.getValue()), depth + 1);
        if (nested != null) {
          return path + "!" + nested;
        }
      }
    }
    return null;
  }

  /** The entries of an archive that passed the structural checks. */
  private static final class Contents {
    String top;
    final Map<String, byte[]> files = new LinkedHashMap<>();
    final Set<String> directories = new LinkedHashSet<>();

    Info info(String digest) {
      byte[] chartYaml = files.get(top + "/Chart.yaml");
      if (chartYaml == null) {
        throw new InvalidChartException(
            "the archive has no "
                + top
                + "/Chart.yaml: a chart archive holds one chart directory"
                + " with its Chart.yaml at the top");
      }
      JsonNode chart;
      try {
        chart = YAML.readTree(chartYaml);
      } catch (JacksonException e) {
        throw new InvalidChartException(
            top + "/Chart.yaml is not valid YAML: " + e.getOriginalMessage(), e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (chart == null || !chart.isObject()) {
        throw new InvalidChartException(
            top + "/Chart.yaml must be a YAML mapping (name, version, ...)");
      }
      String apiVersion = text(chart, "apiVersion");
      if (!"v1".equals(apiVersion) && !"v2".equals(apiVersion)) {
        throw new InvalidChartException(
            top
                + "/Chart.yaml: apiVersion must be v1 or v2, not "
                + (apiVersion == null ? "missing" : "'" + apiVersion + "'"));
      }
      String name = text(chart, "name");
      if (name == null || name.isBlank()) {
        throw new InvalidChartException(top + "/Chart.yaml has no name");
      }
      String version = text(chart, "version");
      if (version == null || version.isBlank()) {
        throw new InvalidChartException(top + "/Chart.yaml of chart " + name + " has no version");
      }
      if (!SEMVER.matcher(version).matches()) {
        throw new InvalidChartException(
            top
                + "/Chart.yaml: version '"
                + version
                + "' of chart "
                + name
                + " is not a SemVer 2 version (MAJOR.MINOR.PATCH, e.g. 1.4.0 or 2.0.0-rc.1)");
      }
      if ("library".equals(text(chart, "type"))) {
        throw new InvalidChartException(
            "chart "
                + name
                + " is a library chart, which cannot be deployed by itself; upload the"
                + " application chart that uses it (with the library in its charts/ directory)");
      }
      return new Info(name, version, text(chart, "appVersion"), text(chart, "description"), digest);
    }

    private static String text(JsonNode node, String field) {
      JsonNode value = node.get(field);
      if (value == null || value.isNull() || value.isContainerNode()) {
        return null;
      }
      return value.asText();
    }
  }

  /** Reads every entry into memory, enforcing the limits and the path and type rules. */
  private static Contents read(byte[] archive) {
    if (archive == null || archive.length == 0) {
      throw new InvalidChartException("the archive is empty");
    }
    if (archive.length > MAX_COMPRESSED_BYTES) {
      throw new InvalidChartException(
          "the archive is "
              + archive.length
              + " bytes; at most "
              + MAX_COMPRESSED_BYTES
              + " bytes (10 MiB) are accepted");
    }
    if (archive.length < 2 || (archive[0] & 0xff) != 0x1f || (archive[1] & 0xff) != 0x8b) {
      throw new InvalidChartException(
          "the archive is not gzip-compressed: a Helm chart archive is a .tgz file (helm package)");
    }
    Contents contents = new Contents();
    int entries = 0;
    try (GZIPInputStream gzip = new GZIPInputStream(new ByteArrayInputStream(archive));
        TarArchiveInputStream tar = new TarArchiveInputStream(new Bounded(gzip))) {
      TarArchiveEntry entry;
      while ((entry = nextEntry(tar)) != null) {
        if (++entries > MAX_ENTRIES) {
          throw new InvalidChartException("the archive has more than " + MAX_ENTRIES + " entries");
        }
        String name = entry.getName();
        refuseSpecial(entry, name);
        boolean directory = entry.isDirectory();
        String path = directory && name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
        String problem = RepoPaths.problem(path);
        if (problem != null) {
          throw new InvalidChartException("entry '" + printable(name) + "' " + problem);
        }
        int slash = path.indexOf('/');
        if (slash < 0 && !directory) {
          throw new InvalidChartException(
              "entry '"
                  + path
                  + "' is not inside the chart directory: a chart archive holds"
                  + " exactly one top-level chart directory");
        }
        String top = slash < 0 ? path : path.substring(0, slash);
        if (contents.top == null) {
          contents.top = top;
        } else if (!contents.top.equals(top)) {
          throw new InvalidChartException(
              "entries lie under both '"
                  + contents.top
                  + "/' and '"
                  + top
                  + "/': a chart archive"
                  + " holds exactly one top-level chart directory");
        }
        if (directory) {
          contents.directories.add(path);
          continue;
        }
        if (entry.getSize() > MAX_UNCOMPRESSED_BYTES) {
          throw tooLarge();
        }
        if (contents.files.containsKey(path)) {
          throw new InvalidChartException("entry '" + path + "' appears twice in the archive");
        }
        contents.files.put(path, tar.readAllBytes());
      }
    } catch (ZipException e) {
      throw new InvalidChartException("the archive is not a valid gzip file: " + e.getMessage(), e);
    } catch (IOException e) {
      for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
        if (cause instanceof InvalidChartException refused) {
          throw refused;
        }
      }
      throw new InvalidChartException(
          "the archive is not a valid tar.gz file: " + e.getMessage(), e);
    }
    if (contents.top == null || contents.files.isEmpty()) {
      throw new InvalidChartException("the archive holds no files");
    }
    for (String file : contents.files.keySet()) {
      for (int i = file.indexOf('/'); i >= 0; i = file.indexOf('/', i + 1)) {
        if (contents.files.containsKey(file.substring(0, i))) {
          throw new InvalidChartException(
              "entry '" + file.substring(0, i) + "' is both a file and a directory");
        }
      }
    }
    return contents;
  }

  private static TarArchiveEntry nextEntry(TarArchiveInputStream tar) throws IOException {
    try {
      return tar.getNextEntry();
    } catch (IllegalArgumentException e) {
      // commons-compress reports some malformed headers (bad numbers) this way.
      throw new IOException(e.getMessage(), e);
    }
  }

  private static void refuseSpecial(TarArchiveEntry entry, String name) {
    String what = null;
    if (entry.isSymbolicLink()) {
      throw new InvalidChartException(
          "symbolic links are not allowed in a chart archive: "
              + printable(name)
              + " -> "
              + printable(entry.getLinkName()));
    }
    if (entry.isLink()) {
      throw new InvalidChartException(
          "hard links are not allowed in a chart archive: "
              + printable(name)
              + " -> "
              + printable(entry.getLinkName()));
    }
    if (entry.isCharacterDevice() || entry.isBlockDevice()) {
      what = "device files";
    } else if (entry.isFIFO()) {
      what = "named pipes (FIFOs)";
    } else if (entry.isSparse()) {
      what = "sparse files";
    } else if (!entry.isDirectory()) {
      byte flag = entry.getLinkFlag();
      if (flag != TarConstants.LF_NORMAL
          && flag != TarConstants.LF_OLDNORM
          && flag != TarConstants.LF_CONTIG) {
        what = "entries of type '" + (char) flag + "'";
      }
    }
    if (what != null) {
      throw new InvalidChartException(
          what + " are not allowed in a chart archive: " + printable(name));
    }
  }

  private static InvalidChartException tooLarge() {
    return new InvalidChartException(
        "the archive unpacks to more than " + MAX_UNCOMPRESSED_BYTES + " bytes (50 MiB)");
  }

  /** Stops reading the unpacked stream once it passes the limit (a gzip bomb stops early). */
  private static final class Bounded extends FilterInputStream {
    private long count;

    Bounded(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = super.read(buffer, offset, length);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      long skipped = super.skip(n);
      count(skipped);
      return skipped;
    }

    private void count(long n) throws IOException {
      count += n;
      if (count > MAX_UNCOMPRESSED_BYTES) {
        throw new IOException(tooLarge());
      }
    }
  }

  /**
   * Asks Helm (in a render worker, {@link RenderWorkers}) to load the archive (Chart.yaml metadata,
   * values.yaml, bundled dependencies) and render it once with its default values, release {@code
   * inspect} in namespace {@code default}. A chart that does not load is refused. A render failure
   * refuses the chart only when it cannot depend on values: a template that does not parse, or a
   * dependency listed in Chart.yaml that is missing from charts/. Other render errors (a value the
   * chart requires) are for the workload's values to fix and do not refuse the upload. A render
   * that passes the worker's deadline or memory limit refuses the chart, naming the limit.
   */
  private static void helmLoads(byte[] archive) {
    RenderWorkers.Outcome outcome;
    try {
      outcome = RenderWorkers.shared().render(sha256(archive), archive, "inspect", "default", null);
    } catch (RenderWorkers.LimitException e) {
      if (e.reason().equals("unavailable")) {
        throw new IllegalStateException("cannot check the chart: " + e.getMessage(), e);
      }
      throw new InvalidChartException(
          "Helm could not load and render the chart: " + e.getMessage());
    }
    if (outcome instanceof RenderWorkers.Failed failed) {
      String message = helmMessage(failed.message());
      if (!failed.loads()
          || message.contains("parse error at (")
          || message.contains("missing in charts/ directory")) {
        throw new InvalidChartException("Helm cannot load the chart: " + message);
      }
    }
  }

  /** Helm's error without the hints meant for the helm command line. */
  static String helmMessage(String message) {
    StringBuilder b = new StringBuilder();
    for (String line : message.split("\n")) {
      if (!line.startsWith("Use --debug flag")) {
        b.append(line).append('\n');
      }
    }
    return b.toString().strip();
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM lacks SHA-256", e);
    }
  }

  private static String printable(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    s.codePoints()
        .limit(200)
        .forEach(
            c -> {
              if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", c));
              } else {
                b.appendCodePoint(c);
              }
            });
    return b.toString();
  }
}

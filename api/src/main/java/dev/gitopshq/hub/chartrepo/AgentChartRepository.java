package dev.gitopshq.hub.chartrepo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.stereotype.Component;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The agent's Helm chart, as the hub serves it from {@code /charts} (a Helm repository): the chart
 * directory the hub was built with (charts/gitopshq-agent, copied into the jar under {@code
 * agent-chart/}), packaged once at start the way {@code helm package} lays it out ({@code
 * gitopshq-agent/Chart.yaml}, …), with entries in a fixed order and time so the same chart always
 * has the same digest, and the repository index that names it.
 */
@Component
public class AgentChartRepository {
  static final String ROOT = "agent-chart/gitopshq-agent/";

  /** Largest file of the chart read from the jar. */
  private static final int MAX_FILE = 1024 * 1024;

  private final String name;
  private final String version;
  private final String appVersion;
  private final String description;
  private final byte[] archive;
  private final String digest;
  private final Instant created;

  public AgentChartRepository() {
    Map<String, byte[]> files = load();
    byte[] chartYaml = files.get("Chart.yaml");
    if (chartYaml == null) {
      throw new IllegalStateException(
          "the hub was built without the agent chart (" + ROOT + "Chart.yaml is missing)");
    }
    Map<String, Object> chart =
        new Yaml(new SafeConstructor(new LoaderOptions()))
            .load(new String(chartYaml, StandardCharsets.UTF_8));
    this.name = String.valueOf(chart.get("name"));
    this.version = String.valueOf(chart.get("version"));
    this.appVersion = String.valueOf(chart.getOrDefault("appVersion", version));
    this.description = String.valueOf(chart.getOrDefault("description", ""));
    this.archive = tgz(name, files);
    this.digest = sha256(archive);
    this.created = Instant.now();
  }

  private static Map<String, byte[]> load() {
    Map<String, byte[]> files = new TreeMap<>();
    try {
      for (Resource r :
          new PathMatchingResourcePatternResolver().getResources("classpath*:" + ROOT + "**")) {
        if (!r.isReadable()) {
          continue; // a directory
        }
        String url = r.getURL().toString();
        int at = url.lastIndexOf(ROOT);
        String path = url.substring(at + ROOT.length());
        if (path.isEmpty() || path.endsWith("/")) {
          continue;
        }
        try (InputStream in = r.getInputStream()) {
          byte[] bytes = in.readNBytes(MAX_FILE + 1);
          if (bytes.length > MAX_FILE) {
            throw new IllegalStateException("chart file " + path + " is larger than 1 MiB");
          }
          files.put(path, bytes);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the agent chart from the hub's jar", e);
    }
    return files;
  }

  private static byte[] tgz(String name, Map<String, byte[]> files) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out);
        TarArchiveOutputStream tar = new TarArchiveOutputStream(gz)) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        TarArchiveEntry e = new TarArchiveEntry(name + "/" + f.getKey());
        e.setSize(f.getValue().length);
        e.setMode(0644);
        e.setModTime(0);
        tar.putArchiveEntry(e);
        tar.write(f.getValue());
        tar.closeArchiveEntry();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public String name() {
    return name;
  }

  public String version() {
    return version;
  }

  /** The archive's file name in the repository. */
  public String fileName() {
    return name + "-" + version + ".tgz";
  }

  public byte[] archive() {
    return archive.clone();
  }

  /** The repository index (Helm's index.yaml, apiVersion v1), with a relative URL. */
  public String indexYaml() {
    return "apiVersion: v1\n"
        + "entries:\n"
        + "  "
        + name
        + ":\n"
        + "    - apiVersion: v2\n"
        + "      name: "
        + name
        + "\n"
        + "      version: "
        + quote(version)
        + "\n"
        + "      appVersion: "
        + quote(appVersion)
        + "\n"
        + "      description: "
        + quote(description)
        + "\n"
        + "      type: application\n"
        + "      created: "
        + quote(created.toString())
        + "\n"
        + "      digest: "
        + digest
        + "\n"
        + "      urls:\n"
        + "        - "
        + fileName()
        + "\n"
        + "generated: "
        + quote(created.toString())
        + "\n";
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}

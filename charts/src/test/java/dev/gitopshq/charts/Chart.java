package dev.gitopshq.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One of the charts in this module, rendered with the helm command-line tool ({@code helm
 * template}, tools/helm: Helm v3.21.0), so the tests see exactly what {@code helm install} would
 * apply. The binary is {@code $GITOPSHQ_HELM_BIN} (as {@code make test} sets it), else {@code
 * tools/bin-path.sh helm}; it runs with an empty environment and a HOME of its own.
 *
 * <p>Values are handed to Helm as a values file written as JSON (valid YAML), so every value keeps
 * its type: a string stays a string, as with {@code --set-string}, and booleans and numbers stay
 * what the test says.
 */
public final class Chart {
  /** The release name the hub's install command uses. */
  public static final String RELEASE = "gitopshq-agent";

  /** The namespace the hub's install command uses. */
  public static final String NAMESPACE = "gitopshq-system";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;

  private Chart(Path dir) {
    if (!Files.isRegularFile(dir.resolve("Chart.yaml"))) {
      throw new IllegalStateException("no chart at " + dir.toAbsolutePath());
    }
    this.dir = dir;
  }

  /** The agent chart. */
  public static Chart agent() {
    return new Chart(chartsDir().resolve("gitopshq-agent"));
  }

  /** The hub chart. */
  public static Chart hub() {
    return new Chart(chartsDir().resolve("gitopshq-hub"));
  }

  /** The {@code charts/} directory: set by the build, else the working directory. */
  public static Path chartsDir() {
    return Path.of(System.getProperty("gitopshq.charts.dir", "")).toAbsolutePath();
  }

  public Path dir() {
    return dir;
  }

  /** Renders with the chart's defaults plus these values (nested maps, see {@link #values}). */
  public Rendered render(Map<String, Object> values) {
    return render(RELEASE, NAMESPACE, values);
  }

  /** Renders with the chart's defaults only. */
  public Rendered render() {
    return render(Map.of());
  }

  public Rendered render(String release, String namespace, Map<String, Object> values) {
    return withValues(
        values,
        file ->
            Rendered.parse(
                helm(
                    "template",
                    release,
                    dir.toString(),
                    "--namespace",
                    namespace,
                    "--values",
                    file.toString())));
  }

  /**
   * Renders and returns the error Helm reports (schema violations, {@code fail} in a template), or
   * fails the test when rendering succeeds.
   */
  public String renderError(Map<String, Object> values) {
    try {
      render(values);
    } catch (IllegalStateException e) {
      return e.getMessage();
    }
    throw new AssertionError("rendering succeeded but should have failed for " + values);
  }

  /**
   * The release notes (NOTES.txt) a user would see after {@code helm install}, rendered by the
   * hub's render worker (tools/render-worker, the same Helm module), which returns the chart's
   * NOTES beside its manifest ({@code helm install --dry-run} would need a cluster).
   */
  public String notes(Map<String, Object> values) {
    Path tmp = null;
    try {
      tmp = Files.createTempDirectory("chart-notes-");
      helm("package", dir.toString(), "--destination", tmp.toString());
      Path archive;
      try (Stream<Path> files = Files.list(tmp)) {
        archive = files.filter(p -> p.toString().endsWith(".tgz")).findFirst().orElseThrow();
      }
      ObjectNode request = JSON.createObjectNode();
      request.put("chart", Files.readAllBytes(archive));
      request.put("name", RELEASE);
      request.put("namespace", NAMESPACE);
      request.set("values", JSON.valueToTree(values));
      byte[] body = JSON.writeValueAsBytes(request);
      Process worker =
          new ProcessBuilder(tool("GITOPSHQ_RENDER_WORKER_BIN", "render-worker").toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      try (DataOutputStream in = new DataOutputStream(worker.getOutputStream());
          DataInputStream out = new DataInputStream(worker.getInputStream())) {
        in.writeInt(body.length);
        in.write(body);
        in.flush();
        JsonNode answer = JSON.readTree(out.readNBytes(out.readInt()));
        if (answer.hasNonNull("error")) {
          throw new IllegalStateException(answer.get("error").asText());
        }
        return answer.path("notes").asText("");
      } finally {
        worker.destroy();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      deleteTree(tmp);
    }
  }

  /** What {@code helm lint --strict} with the chart's default values says. */
  public record Lint(boolean failed, List<String> messages) {}

  /** {@code helm lint --strict} with the chart's default values. */
  public Lint lint() {
    try {
      String out = helm("lint", "--strict", dir.toString());
      return new Lint(false, out.lines().map(String::strip).filter(l -> !l.isEmpty()).toList());
    } catch (IllegalStateException e) {
      return new Lint(true, List.of(e.getMessage()));
    }
  }

  private interface ValuesUse<T> {
    T with(Path valuesFile) throws IOException;
  }

  private static <T> T withValues(Map<String, Object> values, ValuesUse<T> use) {
    Path valuesFile = null;
    try {
      valuesFile = Files.createTempFile("values-", ".json");
      Files.writeString(valuesFile, JSON.writeValueAsString(values));
      return use.with(valuesFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (valuesFile != null) {
        try {
          Files.deleteIfExists(valuesFile);
        } catch (IOException e) {
          // A temporary file of test values; nothing secret in it.
        }
      }
    }
  }

  /** Runs the helm CLI; its stdout, or an IllegalStateException with its error. */
  static String helm(String... args) {
    Path home = null;
    try {
      home = Files.createTempDirectory("helm-home-");
      List<String> command = new ArrayList<>();
      command.add(tool("GITOPSHQ_HELM_BIN", "helm").toString());
      command.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.environment().clear();
      pb.environment().put("HOME", home.toString());
      Path err = home.resolve("stderr");
      Process p = pb.redirectError(err.toFile()).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("helm " + List.of(args) + " did not finish in 120 s");
      }
      if (p.exitValue() != 0) {
        String message = (Files.readString(err) + "\n" + out).strip();
        throw new IllegalStateException(
            message.startsWith("Error: ") ? message.substring("Error: ".length()) : message);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running helm", e);
    } finally {
      deleteTree(home);
    }
  }

  /** A tool built by tools/build-tools.sh: $env when set, else tools/bin-path.sh name. */
  private static Path tool(String env, String name) {
    String set = System.getenv(env);
    if (set != null && !set.isBlank()) {
      return Path.of(set);
    }
    Path script = chartsDir().getParent().resolve("tools/bin-path.sh");
    try {
      Process p = new ProcessBuilder(script.toString(), name).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (p.waitFor() != 0) {
        throw new IllegalStateException(
            "no " + name + " for the chart tests: set " + env + " (" + out + ")");
      }
      return Path.of(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void deleteTree(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // temporary files of a test
    }
  }

  /**
   * Nested values from dotted keys: {@code values("rbac.profile", "readwrite",
   * "capabilities.argocdWrite", true)} is {@code {rbac: {profile: readwrite}, capabilities:
   * {argocdWrite: true}}}.
   */
  public static Map<String, Object> values(Object... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("keys and values must come in pairs");
    }
    Map<String, Object> root = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      put(root, (String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return root;
  }

  /** Sets {@code dotted.key} to value in nested maps. */
  @SuppressWarnings("unchecked")
  public static void put(Map<String, Object> root, String dottedKey, Object value) {
    String[] parts = dottedKey.split("\\.");
    Map<String, Object> node = root;
    for (int i = 0; i < parts.length - 1; i++) {
      node =
          (Map<String, Object>)
              node.computeIfAbsent(parts[i], k -> new LinkedHashMap<String, Object>());
    }
    node.put(parts[parts.length - 1], value);
  }

  /** The chart's values.yaml as a tree. */
  public JsonNode defaultValues() {
    try {
      return Rendered.YAML.readTree(dir.resolve("values.yaml").toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package dev.gitopshq.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One of the charts in this module, rendered in-process with helm-java ({@code helm template}
 * through Helm's own Go library), so the tests see exactly what {@code helm install} would apply.
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
    Path valuesFile = null;
    try {
      valuesFile = Files.createTempFile("values-", ".json");
      Files.writeString(valuesFile, JSON.writeValueAsString(values));
      TemplateCommand template =
          new Helm(dir)
              .template()
              .withName(release)
              .withNamespace(namespace)
              .withValuesFile(valuesFile);
      return Rendered.parse(template.call());
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
   * The release notes (NOTES.txt) a user would see after {@code helm install}: a client-only dry
   * run, which renders NOTES.txt (helm template does not).
   */
  public String notes(Map<String, Object> values) {
    Path valuesFile = null;
    try {
      valuesFile = Files.createTempFile("values-", ".json");
      Files.writeString(valuesFile, JSON.writeValueAsString(values));
      String output =
          new Helm(dir)
              .install()
              .withName(RELEASE)
              .withNamespace(NAMESPACE)
              .clientOnly()
              .dryRun()
              .withValuesFile(valuesFile)
              .call()
              .getOutput();
      int notes = output.indexOf("NOTES:");
      if (notes < 0) {
        throw new AssertionError("no NOTES in the install output:\n" + output);
      }
      return output.substring(notes + "NOTES:".length());
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

  /** {@code helm lint --strict} with the chart's default values. */
  public LintResult lint() {
    return new Helm(dir).lint().strict().call();
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

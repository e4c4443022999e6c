package dev.gitopshq.hub.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.gitopshq.activities.delivery.DeliveryJson;
import dev.gitopshq.activities.delivery.SourceKind;
import dev.gitopshq.activities.git.RepoPaths;
import dev.gitopshq.activities.render.Yaml;
import dev.gitopshq.hub.web.Checks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The object model's validation rules beyond {@link Checks}' generic ones. */
public final class DeliveryChecks {
  private DeliveryChecks() {}

  public static final String DEFAULT_NAMESPACE_PATTERN = "{{ .tenant }}-{{ .environment }}";
  public static final String DEFAULT_IMAGE_TAG_PATH = "image.tag";

  public static final Pattern VARIABLE_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  public static final int MAX_VARIABLE_KEY = 128;
  public static final int MAX_VARIABLE_VALUE_BYTES = 64 * 1024;
  public static final int MAX_VALUES_BYTES = 512 * 1024;
  public static final int MAX_FILES = 200;
  public static final int MAX_FILES_BYTES = 1024 * 1024;
  public static final int MAX_TARGETS = 1000;
  public static final int MAX_OVERLAYS = 100;
  public static final int MAX_CLUSTERS = 100;
  public static final Pattern IMAGE_TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
  public static final Pattern VALUES_PATH = Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*");
  public static final Pattern KIND = Pattern.compile("[A-Za-z][A-Za-z0-9]{0,62}");
  public static final Pattern RESOURCE_NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");

  private static final Pattern NAMESPACE_TOKEN =
      Pattern.compile("\\{\\{\\s*\\.(tenant|environment|project|cluster)\\s*}}|[a-z0-9-]+");
  private static final YAMLMapper YAML = new YAMLMapper(new YAMLFactory());

  /** Why a namespace pattern is refused, or null. */
  public static String namespacePatternProblem(String pattern) {
    if (pattern.isEmpty()) {
      return "must not be empty";
    }
    if (pattern.length() > 253) {
      return "must be at most 253 characters";
    }
    Matcher m = NAMESPACE_TOKEN.matcher(pattern);
    int at = 0;
    while (at < pattern.length()) {
      if (!m.find(at) || m.start() != at) {
        return "may use only {{ .tenant }}, {{ .environment }}, {{ .project }}, {{ .cluster }} and"
            + " lowercase letters, digits and '-' (at character "
            + (at + 1)
            + ")";
      }
      at = m.end();
    }
    return null;
  }

  public static void variableKey(Checks c, String field, String key) {
    if (key == null || key.isEmpty()) {
      c.fail(field, "is required");
    } else if (key.length() > MAX_VARIABLE_KEY || !VARIABLE_KEY.matcher(key).matches()) {
      c.fail(
          field, "must match [A-Za-z_][A-Za-z0-9_]* (at most " + MAX_VARIABLE_KEY + " characters)");
    }
  }

  public static void variableValue(Checks c, String field, String value) {
    if (value == null) {
      c.fail(field, "is required");
    } else if (value.getBytes(StandardCharsets.UTF_8).length > MAX_VARIABLE_VALUE_BYTES) {
      c.fail(field, "must be at most 64 KiB");
    }
  }

  /** A values object: present (null means empty) and not too large. */
  public static void values(Checks c, String field, Map<String, Object> values) {
    if (values != null && DeliveryJson.write(values).length() > MAX_VALUES_BYTES) {
      c.fail(field, "must be at most " + MAX_VALUES_BYTES / 1024 + " KiB as JSON");
    }
  }

  /**
   * The files of a bundle or base: safe paths, within the limits, YAML that parses, and what the
   * kind requires (every bundle document a Kubernetes object; a base its kustomization file).
   */
  /** Aliases a Kustomize base file may use. */
  public static final int MAX_KUSTOMIZE_ALIASES = 50;

  public static void files(Checks c, SourceKind kind, Map<String, String> files) {
    if (files == null || files.isEmpty()) {
      c.fail("files", "must hold at least one file");
      return;
    }
    if (files.size() > MAX_FILES) {
      c.fail("files", "must hold at most " + MAX_FILES + " files");
      return;
    }
    long total = 0;
    for (Map.Entry<String, String> f : files.entrySet()) {
      String field = "files." + f.getKey();
      String why = RepoPaths.problem(f.getKey());
      if (why != null) {
        c.fail(field, why);
        continue;
      }
      if (f.getValue() == null) {
        c.fail(field, "must be the file's text");
        continue;
      }
      total += f.getKey().length() + f.getValue().getBytes(StandardCharsets.UTF_8).length;
      // Kustomize expands aliases itself: a few are fine, a bomb is not. The hub reads bundles'
      // manifests itself and cannot resolve aliases, so they have none.
      String yamlProblem =
          Yaml.aliasProblem(f.getValue(), kind == SourceKind.MANIFESTS ? 0 : MAX_KUSTOMIZE_ALIASES);
      if (yamlProblem == null) {
        yamlProblem =
            kind == SourceKind.MANIFESTS
                ? manifestProblem(f.getValue())
                : yamlProblem(f.getValue());
      }
      if (yamlProblem != null) {
        c.fail(field, yamlProblem);
      }
    }
    if (total > MAX_FILES_BYTES) {
      c.fail("files", "must be at most 1 MiB in all");
    }
    if (kind == SourceKind.KUSTOMIZE
        && !files.containsKey("kustomization.yaml")
        && !files.containsKey("kustomization.yml")
        && !files.containsKey("Kustomization")) {
      c.fail(
          "files",
          "a Kustomize base needs kustomization.yaml (or kustomization.yml, Kustomization) at its root");
    }
  }

  private static List<JsonNode> documents(String text) throws IOException {
    try (var parser = YAML.getFactory().createParser(text)) {
      return YAML.readValues(parser, JsonNode.class).readAll();
    }
  }

  private static String yamlProblem(String text) {
    try {
      documents(text);
      return null;
    } catch (IOException | RuntimeException e) {
      return "is not valid YAML: " + firstLine(e.getMessage());
    }
  }

  private static String manifestProblem(String text) {
    List<JsonNode> docs;
    try {
      docs = documents(text);
    } catch (IOException | RuntimeException e) {
      return "is not valid YAML: " + firstLine(e.getMessage());
    }
    int n = 0;
    for (JsonNode doc : docs) {
      n++;
      if (doc == null || doc.isNull() || doc.isMissingNode()) {
        continue;
      }
      if (!doc.isObject()) {
        return "document " + n + " is not a Kubernetes object (a mapping)";
      }
      for (String required : List.of("apiVersion", "kind")) {
        if (!doc.path(required).isTextual() || doc.path(required).asText().isEmpty()) {
          return "document " + n + " has no " + required;
        }
      }
      JsonNode name = doc.path("metadata").path("name");
      if (!name.isTextual() || name.asText().isEmpty()) {
        return "document " + n + " has no metadata.name";
      }
    }
    return null;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}

package dev.gitopshq.activities.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class UnitFingerprintTest {
  static final String VERSION = Renderer.OUTPUT_VERSION;

  /** A map whose iteration order is the order of {@code keysAndValues}. */
  static Map<String, Object> ordered(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  static Map<String, String> files(String... keysAndValues) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  static Unit unit() {
    return new Unit(
        "rendered/production/eu-1/acme/web",
        Unit.HELM,
        "production",
        "eu-1",
        "acme",
        "web",
        "acme-production",
        "webapp",
        "1.2.0",
        "a".repeat(64),
        ordered(
            "replicaCount",
            3,
            "image",
            ordered("repository", "registry.example/web", "tag", "1.4.2"),
            "env",
            List.of(ordered("name", "LOG", "value", "debug"))),
        files("cm.yaml", "kind: ConfigMap\n", "deploy.yaml", "kind: Deployment\n"),
        List.of(new Overlay("Deployment", "web", ordered("spec", ordered("replicas", 2)))),
        "",
        files("LOG", "debug", "REGION", "eu"));
  }

  /** The same unit with every map built in the reverse key order. */
  static Unit reordered() {
    return new Unit(
        "rendered/production/eu-1/acme/web",
        Unit.HELM,
        "production",
        "eu-1",
        "acme",
        "web",
        "acme-production",
        "webapp",
        "1.2.0",
        "a".repeat(64),
        ordered(
            "env",
            List.of(ordered("value", "debug", "name", "LOG")),
            "image",
            ordered("tag", "1.4.2", "repository", "registry.example/web"),
            "replicaCount",
            3),
        files("deploy.yaml", "kind: Deployment\n", "cm.yaml", "kind: ConfigMap\n"),
        List.of(new Overlay("Deployment", "web", ordered("spec", ordered("replicas", 2)))),
        "",
        files("REGION", "eu", "LOG", "debug"));
  }

  @Test
  void mapKeyOrderDoesNotChangeTheFingerprint() {
    assertThat(UnitFingerprint.of(reordered(), VERSION))
        .isEqualTo(UnitFingerprint.of(unit(), VERSION))
        .matches("[0-9a-f]{64}");
  }

  @Test
  void theRendererReportsItsOutputVersionInTheFingerprint() {
    assertThat(new Renderer().fingerprint(unit()))
        .isEqualTo(UnitFingerprint.of(unit(), Renderer.OUTPUT_VERSION));
    assertThat(new Renderer("helm-java-9/9").fingerprint(unit()))
        .isNotEqualTo(UnitFingerprint.of(unit(), Renderer.OUTPUT_VERSION));
  }

  static Stream<Arguments> oneInputChanged() {
    Unit u = unit();
    Map<String, UnaryOperator<Unit>> changes = new LinkedHashMap<>();
    changes.put("path", x -> with(x, "path", "rendered/production/eu-1/globex/web"));
    changes.put("kind", x -> with(x, "kind", Unit.MANIFESTS));
    changes.put("environment", x -> with(x, "environment", "staging"));
    changes.put("cluster", x -> with(x, "cluster", "eu-2"));
    changes.put("tenant", x -> with(x, "tenant", "globex"));
    changes.put("service (release name)", x -> with(x, "service", "api"));
    changes.put("namespace", x -> with(x, "namespace", "acme-prod"));
    changes.put("chart", x -> with(x, "chart", "webapp2"));
    changes.put("chart version", x -> with(x, "chartVersion", "1.3.0"));
    changes.put("chart digest", x -> with(x, "chartDigest", "b".repeat(64)));
    changes.put(
        "a nested value",
        x ->
            with(
                x,
                "values",
                ordered(
                    "replicaCount",
                    3,
                    "image",
                    ordered("repository", "registry.example/web", "tag", "1.4.3"),
                    "env",
                    List.of(ordered("name", "LOG", "value", "debug")))));
    changes.put(
        "a value's type (3 vs \"3\")",
        x ->
            with(
                x,
                "values",
                ordered(
                    "replicaCount",
                    "3",
                    "image",
                    ordered("repository", "registry.example/web", "tag", "1.4.2"),
                    "env",
                    List.of(ordered("name", "LOG", "value", "debug")))));
    changes.put(
        "a bundle file",
        x -> with(x, "files", files("cm.yaml", "kind: ConfigMap\n", "deploy.yaml", "kind: X\n")));
    changes.put(
        "an overlay",
        x ->
            with(
                x,
                "overlays",
                List.of(
                    new Overlay("Deployment", "web", ordered("spec", ordered("replicas", 3))))));
    changes.put(
        "the overlays' order",
        x ->
            with(
                x,
                "overlays",
                List.of(
                    new Overlay("Service", "web", ordered("a", 1)),
                    new Overlay("Deployment", "web", ordered("a", 2)))));
    changes.put("base path", x -> with(x, "basePath", "../_bases/redis"));
    changes.put("a variable", x -> with(x, "variables", files("LOG", "info", "REGION", "eu")));
    return changes.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue().apply(u)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void oneInputChanged(String what, Unit changed) {
    Unit reference =
        what.equals("the overlays' order")
            ? with(
                unit(),
                "overlays",
                List.of(
                    new Overlay("Deployment", "web", ordered("a", 2)),
                    new Overlay("Service", "web", ordered("a", 1))))
            : unit();
    assertThat(UnitFingerprint.of(changed, VERSION))
        .as(what)
        .isNotEqualTo(UnitFingerprint.of(reference, VERSION));
  }

  @Test
  void anotherRendererOutputVersionChangesEveryFingerprint() {
    assertThat(UnitFingerprint.of(unit(), VERSION))
        .isNotEqualTo(UnitFingerprint.of(unit(), VERSION + "-next"));
  }

  /** {@code u} with one component replaced. */
  @SuppressWarnings("unchecked")
  static Unit with(Unit u, String component, Object value) {
    return new Unit(
        component.equals("path") ? (String) value : u.path(),
        component.equals("kind") ? (String) value : u.kind(),
        component.equals("environment") ? (String) value : u.environment(),
        component.equals("cluster") ? (String) value : u.cluster(),
        component.equals("tenant") ? (String) value : u.tenant(),
        component.equals("service") ? (String) value : u.service(),
        component.equals("namespace") ? (String) value : u.namespace(),
        component.equals("chart") ? (String) value : u.chart(),
        component.equals("chartVersion") ? (String) value : u.chartVersion(),
        component.equals("chartDigest") ? (String) value : u.chartDigest(),
        component.equals("values") ? (Map<String, Object>) value : u.values(),
        component.equals("files") ? (Map<String, String>) value : u.files(),
        component.equals("overlays") ? (List<Overlay>) value : u.overlays(),
        component.equals("basePath") ? (String) value : u.basePath(),
        component.equals("variables") ? (Map<String, String>) value : u.variables());
  }
}

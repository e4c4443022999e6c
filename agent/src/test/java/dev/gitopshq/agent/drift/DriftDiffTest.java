package dev.gitopshq.agent.drift;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

class DriftDiffTest {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static JsonNode yaml(String text) throws Exception {
    return YAML.readTree(text);
  }

  /** A live Deployment as the API server returns it: defaulted fields, server metadata, status. */
  static final String LIVE =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
        namespace: demo
        uid: 2f0d6c1e-0000-4000-8000-000000000001
        resourceVersion: "4711"
        generation: 3
        creationTimestamp: "2026-11-26T10:00:00Z"
        labels: {app: web}
        annotations:
          deployment.kubernetes.io/revision: "1"
        managedFields:
          - manager: gitopshq-agent
            operation: Apply
      spec:
        replicas: %d
        progressDeadlineSeconds: 600
        revisionHistoryLimit: 10
        strategy:
          type: RollingUpdate
          rollingUpdate: {maxSurge: 25%%, maxUnavailable: 25%%}
        selector: {matchLabels: {app: web}}
        template:
          metadata: {labels: {app: web}}
          spec:
            restartPolicy: Always
            terminationGracePeriodSeconds: 30
            containers:
              - name: web
                image: %s
                imagePullPolicy: IfNotPresent
                terminationMessagePath: /dev/termination-log
      status:
        replicas: 3
        readyReplicas: 3
      """;

  static String live(int replicas, String image) {
    return LIVE.formatted(replicas, image);
  }

  @Test
  void aDryRunThatMatchesTheLiveObjectIsNoDriftWhateverTheServerDefaultedOrKeeps()
      throws Exception {
    // The dry run returns the live object merged with the desired fields: defaults included, a
    // newer resourceVersion and generation, another status.
    JsonNode dryRun = yaml(live(2, "registry.example/web:1").replace("\"4711\"", "\"4712\""));
    JsonNode live =
        yaml(live(2, "registry.example/web:1").replace("readyReplicas: 3", "readyReplicas: 1"));
    assertThat(DriftDiff.compare(dryRun, live)).isEmpty();
  }

  @Test
  void replicasAndImagesAreFunctionalWithTheirPaths() throws Exception {
    List<DriftDiff.Difference> d =
        DriftDiff.compare(
            yaml(live(2, "registry.example/web:1")), yaml(live(5, "registry.example/web:2")));
    assertThat(d)
        .containsExactly(
            new DriftDiff.Difference("spec.replicas", "2", "5", DriftDiff.FUNCTIONAL),
            new DriftDiff.Difference(
                "spec.template.spec.containers[name=web].image",
                "\"registry.example/web:1\"",
                "\"registry.example/web:2\"",
                DriftDiff.FUNCTIONAL));
  }

  @Test
  void labelsAndAnnotationsAreCosmeticAndKeysWithDotsAreQuoted() throws Exception {
    JsonNode desired = yaml(live(2, "a:1"));
    JsonNode live =
        yaml(
            live(2, "a:1")
                .replace("labels: {app: web}\n  annotations:", "labels: {app: api}\n  annotations:")
                .replace(
                    "deployment.kubernetes.io/revision: \"1\"",
                    "deployment.kubernetes.io/revision: \"2\""));
    assertThat(DriftDiff.compare(desired, live))
        .containsExactly(
            new DriftDiff.Difference(
                "metadata.annotations[\"deployment.kubernetes.io/revision\"]",
                "\"1\"",
                "\"2\"",
                DriftDiff.COSMETIC),
            new DriftDiff.Difference(
                "metadata.labels.app", "\"web\"", "\"api\"", DriftDiff.COSMETIC));
  }

  @Test
  void aListInAnotherOrderIsCosmeticButAChangedElementIsNot() throws Exception {
    JsonNode desired = yaml("kind: Role\nrules: [{verbs: [get]}, {verbs: [list]}]");
    JsonNode reordered = yaml("kind: Role\nrules: [{verbs: [list]}, {verbs: [get]}]");
    JsonNode widened = yaml("kind: Role\nrules: [{verbs: [get]}, {verbs: [delete]}]");
    assertThat(DriftDiff.compare(desired, reordered))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.path()).isEqualTo("rules");
              assertThat(d.severity()).isEqualTo(DriftDiff.COSMETIC);
            });
    assertThat(DriftDiff.compare(desired, widened))
        .containsExactly(
            new DriftDiff.Difference(
                "rules[1].verbs[0]", "\"list\"", "\"delete\"", DriftDiff.FUNCTIONAL));
  }

  @Test
  void aFieldOnlyTheLiveObjectHasIsDriftWhenTheDryRunRemovesIt() throws Exception {
    JsonNode desired = yaml("kind: ConfigMap\ndata: {mode: fast}");
    JsonNode live = yaml("kind: ConfigMap\ndata: {mode: fast, debug: \"true\"}");
    assertThat(DriftDiff.compare(desired, live))
        .containsExactly(
            new DriftDiff.Difference("data.debug", "", "\"true\"", DriftDiff.FUNCTIONAL));
  }

  @Test
  void theSubsetComparisonLooksOnlyAtDesiredFieldsSoDefaultsNeverCount() throws Exception {
    JsonNode manifest =
        yaml(
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web, namespace: demo, labels: {app: web}}
            spec:
              replicas: 2
              selector: {matchLabels: {app: web}}
              template:
                metadata: {labels: {app: web}}
                spec:
                  containers: [{name: web, image: registry.example/web:1}]
            """);
    assertThat(DriftDiff.compareSubset(manifest, yaml(live(2, "registry.example/web:1"))))
        .isEmpty();
    assertThat(DriftDiff.compareSubset(manifest, yaml(live(4, "registry.example/web:1"))))
        .containsExactly(new DriftDiff.Difference("spec.replicas", "2", "4", DriftDiff.FUNCTIONAL));
  }

  @Test
  void aSecretsValuesAreNeverShown() throws Exception {
    JsonNode desired = yaml("kind: Secret\ndata: {password: c2VjcmV0}");
    JsonNode live = yaml("kind: Secret\ndata: {password: b3RoZXI=}");
    assertThat(DriftDiff.compare(desired, live))
        .containsExactly(
            new DriftDiff.Difference(
                "data.password", "\"(redacted)\"", "\"(redacted)\"", DriftDiff.FUNCTIONAL));
  }

  @Test
  void numbersCompareByValue() throws Exception {
    assertThat(DriftDiff.compare(yaml("kind: X\nspec: {a: 2}"), yaml("kind: X\nspec: {a: 2.0}")))
        .isEmpty();
  }
}

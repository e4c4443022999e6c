package dev.gitopshq.agent.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.RelatedResource;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What an operator sees when inspecting one object: YAML, events, and what it relates to. */
class InspectorTest {
  static final String VALUE = "c3VwZXItc2VjcmV0"; // super-secret

  TestKube kube;

  @BeforeEach
  void start() {
    kube = TestKube.start();
    var c = kube.client();
    Deployment web =
        c.apps()
            .deployments()
            .inNamespace("shop")
            .resource(
                new DeploymentBuilder()
                    .withNewMetadata()
                    .withName("web")
                    .withNamespace("shop")
                    .addToLabels("app", "web")
                    .endMetadata()
                    .withNewSpec()
                    .withReplicas(1)
                    .endSpec()
                    .build())
            .create();
    ReplicaSet rs =
        c.apps()
            .replicaSets()
            .inNamespace("shop")
            .resource(
                new ReplicaSetBuilder()
                    .withNewMetadata()
                    .withName("web-abc")
                    .withNamespace("shop")
                    .withOwnerReferences(
                        new OwnerReferenceBuilder()
                            .withApiVersion("apps/v1")
                            .withKind("Deployment")
                            .withName("web")
                            .withUid(web.getMetadata().getUid())
                            .build())
                    .endMetadata()
                    .build())
            .create();
    c.pods()
        .inNamespace("shop")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("web-abc-1")
                .withNamespace("shop")
                .addToLabels("app", "web")
                .withOwnerReferences(
                    new OwnerReferenceBuilder()
                        .withApiVersion("apps/v1")
                        .withKind("ReplicaSet")
                        .withName("web-abc")
                        .withUid(rs.getMetadata().getUid())
                        .build())
                .endMetadata()
                .build())
        .create();
    c.services()
        .inNamespace("shop")
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace("shop")
                .endMetadata()
                .withNewSpec()
                .addToSelector("app", "web")
                .endSpec()
                .build())
        .create();
    c.secrets()
        .inNamespace("shop")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("db")
                .withNamespace("shop")
                .addToAnnotations(
                    "kubectl.kubernetes.io/last-applied-configuration",
                    "{\"data\":{\"password\":\"" + VALUE + "\"}}")
                .endMetadata()
                .addToData("password", VALUE)
                .build())
        .create();
    c.v1()
        .events()
        .inNamespace("shop")
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName("web.1")
                .withNamespace("shop")
                .endMetadata()
                .withInvolvedObject(
                    new ObjectReferenceBuilder()
                        .withKind("Deployment")
                        .withName("web")
                        .withUid(web.getMetadata().getUid())
                        .build())
                .withType("Normal")
                .withReason("ScalingReplicaSet")
                .withMessage("Scaled up replica set web-abc to 1")
                .withLastTimestamp("2026-11-24T06:00:00Z")
                .build())
        .create();
  }

  @AfterEach
  void stop() {
    kube.close();
  }

  static ReadResource read(String group, String kind, String ns, String name) {
    return ReadResource.newBuilder()
        .setRequestId("r1")
        .setGroup(group)
        .setVersion("v1")
        .setKind(kind)
        .setNamespace(ns)
        .setName(name)
        .setIncludeEvents(true)
        .build();
  }

  Inspector inspector(Set<String> allowed, boolean diagnostics) {
    return new Inspector(
        kube::client, ns -> allowed.isEmpty() || ns.isEmpty() || allowed.contains(ns), diagnostics);
  }

  @Test
  void aDeploymentWithItsEventsReplicaSetsAndPods() {
    ResourceDetail d = inspector(Set.of(), true).read(read("apps", "Deployment", "shop", "web"));

    assertThat(d.getOutcome()).isEqualTo(ResourceDetail.Outcome.FOUND);
    assertThat(d.getRequestId()).isEqualTo("r1");
    assertThat(d.getYaml()).contains("kind: \"Deployment\"").contains("name: \"web\"");
    assertThat(d.getYaml()).doesNotContain("managedFields");
    assertThat(d.getEventsList())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getReason()).isEqualTo("ScalingReplicaSet");
              assertThat(e.getMessage()).contains("web-abc");
            });
    assertThat(d.getRelatedList())
        .extracting(r -> r.getRelation() + " " + r.getKind() + "/" + r.getName())
        .containsExactlyInAnyOrder("owned ReplicaSet/web-abc", "owned Pod/web-abc-1");
  }

  /** Found by the hub's API fuzzing: a kind the API group does not serve was a 502. */
  @Test
  void aKindTheGroupVersionDoesNotServeIsNotFound() {
    ResourceDetail d = inspector(Set.of(), true).read(read("apps", "Namespace", "", "shop"));
    assertThat(d.getOutcome()).isEqualTo(ResourceDetail.Outcome.NOT_FOUND);
    assertThat(d.getError()).isEqualTo("the cluster serves no kind Namespace in apps/v1");
  }

  @Test
  void withoutDiagnosticsThereAreNoEventsAndAServiceShowsThePodsItSelects() {
    ResourceDetail d = inspector(Set.of(), false).read(read("", "Service", "shop", "web"));
    assertThat(d.getEventsList()).isEmpty();
    List<RelatedResource> related = d.getRelatedList();
    assertThat(related)
        .extracting(r -> r.getRelation() + " " + r.getKind() + "/" + r.getName())
        .containsExactly("selects Pod/web-abc-1");
  }

  @Test
  void aSecretsValuesAreRedactedEvenInTheLastAppliedAnnotation() {
    ResourceDetail d = inspector(Set.of(), true).read(read("", "Secret", "shop", "db"));
    assertThat(d.getOutcome()).isEqualTo(ResourceDetail.Outcome.FOUND);
    assertThat(d.getYaml()).contains("password: \"" + Inspector.REDACTED + "\"");
    assertThat(d.toString()).doesNotContain(VALUE);
  }

  @Test
  void aNamespaceOutsideTheAllowedOnesIsForbiddenAndAMissingObjectIsNotFound() {
    ResourceDetail forbidden =
        inspector(Set.of("other"), true).read(read("apps", "Deployment", "shop", "web"));
    assertThat(forbidden.getOutcome()).isEqualTo(ResourceDetail.Outcome.FORBIDDEN);
    assertThat(forbidden.getError()).contains("diagnostics.allowedNamespaces");
    assertThat(forbidden.getYaml()).isEmpty();

    ResourceDetail missing =
        inspector(Set.of(), true).read(read("apps", "Deployment", "shop", "nope"));
    assertThat(missing.getOutcome()).isEqualTo(ResourceDetail.Outcome.NOT_FOUND);
    assertThat(missing.getError()).contains("Deployment shop/nope");
  }
}

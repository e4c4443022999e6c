package dev.gitopshq.agent.credentials;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.gitopshq.agent.kube.CredentialWriter;
import dev.gitopshq.agent.model.CredentialSecrets;
import dev.gitopshq.agent.v1.CredentialSyncResult;
import dev.gitopshq.agent.v1.NamespaceSync;
import dev.gitopshq.agent.v1.PruneCredentials;
import dev.gitopshq.agent.v1.SyncCredential;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The agent's refusals happen before any API call (the writer's client would fail the test if it
 * were asked for), and the Secret it applies carries ids, not values, outside its data.
 */
class CredentialSyncTest {
  static final CredentialWriter UNREACHABLE =
      new CredentialWriter(
          () -> {
            throw new AssertionError("the Kubernetes API must not be called");
          });

  static SyncCredential sync(String... namespaces) {
    return SyncCredential.newBuilder()
        .setRequestId("r1")
        .setCredentialId("1b4e28ba-2fa1-11d2-883f-0016d3cca427")
        .setName("registry")
        .setType("dockerconfigjson")
        .setVersion(3)
        .putData(".dockerconfigjson", ByteString.copyFromUtf8("{\"auths\":{\"canary\":{}}}"))
        .addAllNamespaces(List.of(namespaces))
        .build();
  }

  @Test
  void refusesEverythingWhenTheCapabilityIsOff() {
    CredentialSyncResult r = CredentialSync.refused(sync("apps", "web"));
    assertThat(r.getNamespacesList())
        .extracting(NamespaceSync::getSynced)
        .containsExactly(false, false);
    assertThat(r.getNamespaces(0).getError()).contains("credential.sync capability is off");
    assertThat(r.getVersion()).isEqualTo(3);
    assertThat(CredentialSync.refused(PruneCredentials.getDefaultInstance()).getError())
        .contains("capability is off");
  }

  @Test
  void refusesANamespaceOutsideTheTargets() {
    CredentialSync on = new CredentialSync(List.of("apps"), UNREACHABLE);
    NamespaceSync ns = on.sync(sync("kube-system")).getNamespaces(0);
    assertThat(ns.getSynced()).isFalse();
    assertThat(ns.getError()).contains("outside the agent's credentialSync.targets [apps]");
  }

  @Test
  void theSecretHasTheTypeDataLabelsAndNoValueInItsMetadata() {
    Secret s =
        CredentialSecrets.desired(
            "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
            "registry",
            "dockerconfigjson",
            3,
            java.util.Map.of(
                ".dockerconfigjson",
                "{\"auths\":{\"canary\":{}}}".getBytes(StandardCharsets.UTF_8)),
            "apps");
    assertThat(s.getType()).isEqualTo("kubernetes.io/dockerconfigjson");
    assertThat(
            new String(
                Base64.getDecoder().decode(s.getData().get(".dockerconfigjson")),
                StandardCharsets.UTF_8))
        .contains("canary");
    assertThat(s.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "gitopshq")
        .containsEntry("gitopshq.io/credential-id", "1b4e28ba-2fa1-11d2-883f-0016d3cca427");
    assertThat(s.getMetadata().toString()).doesNotContain("canary");
  }

  static Secret managed(String id, String ns, String name) {
    return new SecretBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .addToLabels("app.kubernetes.io/managed-by", "gitopshq")
        .addToLabels("gitopshq.io/credential-id", id)
        .endMetadata()
        .build();
  }

  @Test
  void aPruneRemovesOnlyManagedSecretsNoLongerAssigned() {
    Secret kept = managed("a", "apps", "registry");
    Secret unassignedNamespace = managed("a", "web", "registry");
    Secret deletedCredential = managed("b", "apps", "tls");
    Secret someoneElses =
        new SecretBuilder()
            .withNewMetadata()
            .withNamespace("apps")
            .withName("other")
            .addToLabels("app.kubernetes.io/managed-by", "gitopshq")
            .endMetadata()
            .build();
    java.util.Set<String> keep = java.util.Set.of(CredentialSecrets.key("a", "apps", "registry"));
    assertThat(
            CredentialSecrets.stale(
                List.of(kept, unassignedNamespace, deletedCredential, someoneElses), keep))
        .containsExactly(unassignedNamespace, deletedCredential);
  }

  @Test
  void neverOverwritesASecretItDoesNotManage() {
    try (dev.gitopshq.testkube.TestKube kube = dev.gitopshq.testkube.TestKube.start()) {
      kube.client()
          .secrets()
          .inNamespace("apps")
          .resource(
              new SecretBuilder()
                  .withNewMetadata()
                  .withName("registry")
                  .withNamespace("apps")
                  .endMetadata()
                  .addToData("config", "c29tZW9uZSBlbHNlJ3M=")
                  .build())
          .create();
      CredentialSync on = new CredentialSync(List.of(), new CredentialWriter(kube::client));
      NamespaceSync ns = on.sync(sync("apps")).getNamespaces(0);
      assertThat(ns.getSynced()).isFalse();
      assertThat(ns.getError()).contains("GitOpsHQ does not overwrite it");
      assertThat(kube.client().secrets().inNamespace("apps").withName("registry").get().getData())
          .containsExactly(java.util.Map.entry("config", "c29tZW9uZSBlbHNlJ3M="));
    }
  }
}

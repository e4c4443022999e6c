package dev.gitopshq.agent.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SecretIdentityStoreTest {

  private static final String TOKEN_A = "ghqa_" + "1".repeat(64);
  private static final String TOKEN_B = "ghqa_" + "2".repeat(64);

  private static TestKube kube;

  @BeforeAll
  static void startKube() {
    kube = TestKube.start();
    kube.client()
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName("gitopshq-system")
                .endMetadata()
                .build())
        .create();
  }

  @AfterAll
  static void stopKube() {
    kube.close();
  }

  private static AgentIdentity identity(String clusterId, String token) {
    return new AgentIdentity(
        clusterId, token, "hub.example.com:50051", Instant.parse("2025-03-01T12:00:00Z"));
  }

  private static Secret secret(String name) {
    return kube.client().secrets().inNamespace("gitopshq-system").withName(name).get();
  }

  private static String decoded(Secret secret) {
    return new String(
        Base64.getDecoder().decode(secret.getData().get("agent.json")), StandardCharsets.UTF_8);
  }

  @Test
  void createsTheSecretThenUpdatesIt() {
    KubernetesClient client = kube.client();
    SecretIdentityStore store =
        new SecretIdentityStore(() -> client, "gitopshq-system", "created-identity");
    assertThat(store.load()).isEmpty();

    store.save(identity("cluster-1", TOKEN_A));

    Secret created = secret("created-identity");
    assertThat(created.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/name", "gitopshq-agent");
    assertThat(created.getData()).containsOnlyKeys("agent.json");
    assertThat(decoded(created)).contains("\"clusterId\" : \"cluster-1\"").contains(TOKEN_A);

    store.save(identity("cluster-1", TOKEN_B));

    Secret updated = secret("created-identity");
    assertThat(decoded(updated)).contains(TOKEN_B).doesNotContain(TOKEN_A);
    assertThat(updated.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
    assertThat(store.load()).contains(identity("cluster-1", TOKEN_B));
  }

  @Test
  void addsItsKeyToASecretTheChartCreatedEmpty() {
    kube.client()
        .secrets()
        .inNamespace("gitopshq-system")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("chart-identity")
                .addToLabels("helm.sh/chart", "agent")
                .endMetadata()
                .addToData(
                    "other",
                    Base64.getEncoder().encodeToString("keep me".getBytes(StandardCharsets.UTF_8)))
                .build())
        .create();
    SecretIdentityStore store =
        new SecretIdentityStore(kube::client, "gitopshq-system", "chart-identity");
    assertThat(store.load()).isEmpty();

    store.save(identity("cluster-2", TOKEN_A));

    Secret secret = secret("chart-identity");
    assertThat(secret.getData()).containsKeys("agent.json", "other");
    assertThat(secret.getMetadata().getLabels())
        .containsEntry("helm.sh/chart", "agent")
        .containsEntry("app.kubernetes.io/name", "gitopshq-agent");
    assertThat(store.load()).contains(identity("cluster-2", TOKEN_A));
  }

  @Test
  void clearRemovesOnlyTheIdentityKey() {
    SecretIdentityStore store =
        new SecretIdentityStore(kube::client, "gitopshq-system", "cleared-identity");
    store.save(identity("cluster-3", TOKEN_A));

    store.clear();

    assertThat(store.load()).isEmpty();
    assertThat(secret("cleared-identity")).isNotNull();
    assertThat(store.location()).isEqualTo("Secret gitopshq-system/cleared-identity");
  }
}

package dev.gitopshq.activities.credential;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.org.OrgRow;
import dev.gitopshq.activities.policy.PolicyEvaluation;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CredentialSyncDecisionsTest {
  static final ObjectMapper JSON = new ObjectMapper();

  static PolicyEvaluation decision(String json) throws Exception {
    return new PolicyEvaluation("credentials", 4, "abc", JSON.readTree(json));
  }

  @Test
  void allowedNamespacesHaveNoReasonAndDeniedOnesTheirs() throws Exception {
    var reasons =
        CredentialSyncDecisions.reasons(
            decision(
                "{\"allowed\": [\"apps\"], \"denied\": {\"kube-system\": [\"no kube-*\"]},"
                    + " \"reasons\": [\"no kube-*\"]}"),
            List.of("apps", "kube-system"));

    assertThat(reasons)
        .containsEntry("apps", List.of())
        .containsEntry("kube-system", List.of("no kube-*"));
  }

  @Test
  void aNamespaceTheDecisionLeavesOutOrDeniesWithoutAReasonIsDenied() throws Exception {
    var reasons =
        CredentialSyncDecisions.reasons(
            decision("{\"allowed\": [\"apps\"], \"denied\": {\"web\": []}}"),
            List.of("apps", "web", "payments"));

    assertThat(reasons.get("apps")).isEmpty();
    assertThat(reasons.get("web"))
        .containsExactly(
            "the credentials policy (version 4) denied namespace web without a reason");
    assertThat(reasons.get("payments"))
        .containsExactly(
            "the credentials policy (version 4) gave no decision for namespace payments");
  }

  @Test
  void aNamespaceBothAllowedAndDeniedIsDenied() throws Exception {
    var reasons =
        CredentialSyncDecisions.reasons(
            decision("{\"allowed\": [\"apps\"], \"denied\": {\"apps\": [\"not here\"]}}"),
            List.of("apps"));

    assertThat(reasons.get("apps")).containsExactly("not here");
  }

  @Test
  void aMalformedDecisionDeniesEverything() throws Exception {
    var reasons =
        CredentialSyncDecisions.reasons(decision("{\"allowed\": \"apps\"}"), List.of("apps"));

    assertThat(reasons.get("apps")).hasSize(1);
  }

  @Test
  void theInputNamesTheCredentialButCarriesNoValue() {
    UUID org = UUID.randomUUID();
    UUID cluster = UUID.randomUUID();
    UUID credential = UUID.randomUUID();
    AssignmentRow row =
        new AssignmentRow(
            org,
            credential,
            cluster,
            "apps",
            "pending",
            null,
            null,
            null,
            Instant.EPOCH,
            Instant.EPOCH,
            "registry",
            "dockerconfigjson",
            3,
            "prod-eu",
            false,
            null);
    ClusterRow c =
        new ClusterRow(
            cluster,
            org,
            "prod-eu",
            "Prod EU",
            "aws",
            "eu-west-1",
            "production",
            Map.of("tier", "production"),
            "1.0",
            List.of("credential.sync"),
            30,
            null,
            null,
            null,
            null,
            "u",
            Instant.EPOCH,
            Instant.EPOCH,
            false,
            null,
            null,
            null,
            null,
            null,
            null);

    JsonNode in =
        CredentialSyncDecisions.input(
            new OrgRow(org, "acme", "Acme", "free", Instant.EPOCH),
            c,
            row,
            List.of("apps", "web"),
            "the agent connected",
            "system");

    assertThat(in.fieldNames())
        .toIterable()
        .containsExactly("organization", "cluster", "credential", "namespaces", "cause", "actor");
    assertThat(in.at("/organization/slug").asText()).isEqualTo("acme");
    assertThat(in.at("/cluster/labels/tier").asText()).isEqualTo("production");
    assertThat(in.at("/cluster/environment").asText()).isEqualTo("production");
    assertThat(in.get("credential").fieldNames())
        .toIterable()
        .containsExactly("id", "name", "type");
    assertThat(in.at("/credential/name").asText()).isEqualTo("registry");
    assertThat(in.get("namespaces").toString()).isEqualTo("[\"apps\",\"web\"]");
  }
}

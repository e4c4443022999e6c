package dev.gitopshq.hub.team;

import static dev.gitopshq.hub.team.GrantFixtures.shape;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Approval eligibility goes through the grants: whoever reaches no grant on the command's cluster
 * neither sees its approval in the inbox nor may vote (404, as for an unknown approval); a viewer
 * grant sees the cluster but is no approver where the policy asks for members; a member grant is,
 * and their vote completes the approval. In an organization of its own.
 */
class ApprovalGrantsIT {
  static HubTestSupport hub;

  @BeforeAll
  static void start() {
    // The command's decision is the approval policy's, in the real OPA.
    hub = HubTestSupport.sharedWithOpa();
  }

  @Test
  void onlyAGrantWithAnApproverRoleOnTheClusterMaySeeAndVote() {
    GrantFixtures org = new GrantFixtures(hub, "approvals");
    String s = UUID.randomUUID().toString().substring(0, 8);
    String cluster = org.cluster("prod-" + s, Map.of("tier", "prod"));
    // Its agent, never connected here, is taken to report the capability the command needs.
    HubTestSupport.exec(
        "update clusters set capabilities = '{observe,argocd.write}' where id = ?::uuid", cluster);
    Response bind =
        hub.send(
            "PUT",
            "/api/v2/clusters/" + cluster + "/approval-policy",
            org.owner,
            Map.of(
                "requireApproval",
                List.of("sync"),
                "requiredApprovers",
                1,
                "approverRoles",
                List.of("member")));
    assertThat(bind.status()).as(bind.raw()).isEqualTo(200);

    String ungrantedId = org.member("member");
    String lookerId = org.member("member");
    String approverId = org.member("member");
    String viewers = org.team("prod-viewers-" + s, lookerId);
    org.clusterGrant(viewers, "viewer", Map.of("tier", "prod"));
    String operators = org.team("prod-operators-" + s, approverId);
    org.clusterGrant(operators, "member", Map.of("tier", "prod"));
    String ungranted = org.token(ungrantedId);
    String looker = org.token(lookerId);
    String approver = org.token(approverId);

    Response command =
        hub.post(
            "/api/v2/clusters/" + cluster + "/commands",
            org.owner,
            Map.of(
                "type",
                "sync",
                "target",
                Map.of("namespace", "argocd", "kind", "Application", "name", "shop-" + s)));
    assertThat(command.status()).as(command.raw()).isBetween(200, 202);
    String commandId = command.body().get("id").asText();
    await()
        .atMost(Duration.ofSeconds(60))
        .alias("the command waits for approval")
        .until(() -> approvals(hub, org.owner, commandId).size() == 1);
    String approval = approvals(hub, org.owner, commandId).get(0).get("id").asText();

    // Without a grant: not in the inbox, and a vote answers as for an approval that is not there.
    assertThat(inbox(hub, ungranted)).doesNotContain(approval);
    String unknown = UUID.randomUUID().toString();
    for (String verb : List.of("approve", "reject")) {
      Map<String, String> body = Map.of("comment", "not mine to judge");
      assertThat(
              shape(
                  hub.post("/api/v2/approvals/" + approval + "/" + verb, ungranted, body),
                  approval))
          .startsWith("404")
          .isEqualTo(
              shape(
                  hub.post("/api/v2/approvals/" + unknown + "/" + verb, ungranted, body), unknown));
    }
    assertThat(hub.get("/api/v2/commands/" + commandId, ungranted).status()).isEqualTo(404);

    // A viewer grant: the command is visible, the approval is not theirs to give.
    assertThat(hub.get("/api/v2/commands/" + commandId, looker).status()).isEqualTo(200);
    assertThat(inbox(hub, looker)).doesNotContain(approval);
    Response refused =
        hub.post("/api/v2/approvals/" + approval + "/approve", looker, Map.of("comment", "ok"));
    assertThat(refused.status()).as(refused.raw()).isEqualTo(403);
    assertThat(refused.body().get("message").asText()).contains("not an eligible approver");

    // A member grant: in the inbox, and one vote completes the approval.
    assertThat(inbox(hub, approver)).contains(approval);
    Response voted =
        hub.post("/api/v2/approvals/" + approval + "/approve", approver, Map.of("comment", "lgtm"));
    assertThat(voted.status()).as(voted.raw()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(60))
        .alias("the approval completes")
        .untilAsserted(
            () -> {
              JsonNode a = approvals(hub, org.owner, commandId).get(0);
              assertThat(a.get("status").asText()).as(a.toString()).isEqualTo("approved");
              assertThat(a.get("votes").findValuesAsText("memberId")).containsExactly(approverId);
            });
    assertThat(inbox(hub, approver)).doesNotContain(approval);
  }

  static JsonNode approvals(HubTestSupport hub, String token, String commandId) {
    Response r = hub.get("/api/v2/commands/" + commandId, token);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body().get("approvals");
  }

  static List<String> inbox(HubTestSupport hub, String token) {
    Response r = hub.get("/api/v2/approvals", token);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body().get("items").findValuesAsText("id");
  }
}

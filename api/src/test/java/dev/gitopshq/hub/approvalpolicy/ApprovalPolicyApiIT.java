package dev.gitopshq.hub.approvalpolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reusable approval policies through the hub: a policy attached by selector governs a matching
 * cluster's commands, one attached by name overrides it, equally specific attachments are refused
 * when saved, a tie made later by a label change is resolved and shown, the cluster's older
 * endpoint reads and writes its own policy, and another organization's policies are 404.
 */
class ApprovalPolicyApiIT {
  static HubTestSupport hub;
  static String token;
  static String orgId;
  static String otherToken;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.sharedWithOpa();
    JsonNode org = hub.createOrg("ap-" + suffix());
    token = org.get("ownerToken").asText();
    orgId = org.get("org").get("id").asText();
    otherToken = hub.createOrg("ap-other-" + suffix()).get("ownerToken").asText();
  }

  static String suffix() {
    return UUID.randomUUID().toString().substring(0, 8);
  }

  static String cluster(String name, Map<String, String> labels) {
    Response r = hub.post("/api/v2/clusters", token, Map.of("name", name, "labels", labels));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    String id = r.body().get("cluster").get("id").asText();
    // Its agent, never connected here, is taken to report the capability a sync needs.
    HubTestSupport.exec(
        "update clusters set capabilities = '{observe,argocd.write}' where id = ?::uuid", id);
    return id;
  }

  static Map<String, Object> policy(String name, int approvers, Object... attachments) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("name", name);
    p.put("requireApproval", List.of("sync"));
    p.put("requiredApprovers", approvers);
    for (int i = 0; i < attachments.length; i += 2) {
      p.put((String) attachments[i], attachments[i + 1]);
    }
    return p;
  }

  static Response create(Map<String, Object> body) {
    return hub.post("/api/v2/approval-policies", token, body);
  }

  static Map<String, Object> selector(Map<String, String> labels) {
    return Map.of("matchLabels", labels);
  }

  /** Requests a sync and returns the approvals it waits for, once its decision is made. */
  static JsonNode syncWaitsFor(String clusterId) {
    Response r =
        hub.post(
            "/api/v2/clusters/" + clusterId + "/commands",
            token,
            Map.of(
                "type",
                "sync",
                "target",
                Map.of("namespace", "argocd", "kind", "Application", "name", "web")));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    String id = r.body().get("id").asText();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(hub.get("/api/v2/commands/" + id, token).body().get("approvals"))
                    .as(hub.get("/api/v2/commands/" + id, token).raw())
                    .hasSize(1));
    return hub.get("/api/v2/commands/" + id, token).body();
  }

  static JsonNode inForce(String clusterId) {
    return hub.get("/api/v2/clusters/" + clusterId, token).body().get("approvalPolicy");
  }

  @Test
  void aSelectorPolicyGovernsAMatchingClusterAndANamedOneOverridesIt() {
    String s = suffix();
    String prod = cluster("prod-" + s, Map.of("tier", "production", "zone", "z-" + s));
    Response created =
        create(
            policy(
                "two-eyes-" + s,
                2,
                "selector",
                selector(Map.of("tier", "production", "zone", "z-" + s))));
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    assertThat(created.body().get("governs").get(0).get("cluster").asText()).isEqualTo("prod-" + s);

    JsonNode f = inForce(prod);
    assertThat(f.get("name").asText()).isEqualTo("two-eyes-" + s);
    assertThat(f.get("attachedBy").asText()).isEqualTo("selector");
    assertThat(f.get("selector").asText()).isEqualTo("tier=production,zone=z-" + s);
    // Production's default auto-approves a sync; the policy makes it wait for two approvals.
    JsonNode command = syncWaitsFor(prod);
    assertThat(command.get("approvals").get(0).get("requiredApprovers").asInt()).isEqualTo(2);

    Response named = create(policy("only-" + s, 1, "clusters", List.of("prod-" + s)));
    assertThat(named.status()).as(named.raw()).isEqualTo(201);
    assertThat(inForce(prod).get("name").asText()).isEqualTo("only-" + s);
    assertThat(inForce(prod).get("attachedBy").asText()).isEqualTo("name");
    assertThat(syncWaitsFor(prod).get("approvals").get(0).get("requiredApprovers").asInt())
        .isEqualTo(1);

    // The older endpoint reads and writes the cluster's own policy: the one naming it.
    JsonNode own = hub.get("/api/v2/clusters/" + prod + "/approval-policy", token).body();
    assertThat(own.get("bound").asBoolean()).isTrue();
    assertThat(own.get("policy").asText()).isEqualTo("only-" + s);

    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where org_id = ?::uuid and target_id = ?"
                    + " and action = 'approval_policy.created'",
                orgId,
                "two-eyes-" + s))
        .isEqualTo(1);
  }

  @Test
  void equallySpecificAttachmentsAreRefusedNamingThePolicies() {
    String s = suffix();
    cluster("eu-" + s, Map.of("tier", "production", "region", "eu-" + s));
    assertThat(
            create(policy("tier-" + s, 1, "selector", selector(Map.of("region", "eu-" + s))))
                .status())
        .isEqualTo(201);
    Response tie =
        create(policy("region-" + s, 2, "selector", selector(Map.of("tier", "production"))));
    assertThat(tie.status()).as(tie.raw()).isEqualTo(400);
    assertThat(tie.raw())
        .contains("selector")
        .contains("tier-" + s)
        .contains("region-" + s)
        .contains("eu-" + s);
    assertThat(hub.get("/api/v2/approval-policies/region-" + s, token).status()).isEqualTo(404);

    assertThat(create(policy("a-" + s, 1, "clusters", List.of("eu-" + s))).status()).isEqualTo(201);
    Response twice = create(policy("b-" + s, 1, "clusters", List.of("eu-" + s)));
    assertThat(twice.status()).as(twice.raw()).isEqualTo(400);
    assertThat(twice.raw()).contains("clusters").contains("a-" + s).contains("b-" + s);
  }

  @Test
  void aTieMadeByALabelChangeIsResolvedByNameAndShownOnTheCluster() {
    String s = suffix();
    String id = cluster("canary-" + s, Map.of("team", "t-" + s));
    assertThat(
            create(policy("z-team-" + s, 1, "selector", selector(Map.of("team", "t-" + s))))
                .status())
        .isEqualTo(201);
    assertThat(
            create(policy("a-canary-" + s, 2, "selector", selector(Map.of("canary", "c-" + s))))
                .status())
        .isEqualTo(201);
    assertThat(inForce(id).get("name").asText()).isEqualTo("z-team-" + s);
    assertThat(inForce(id).has("warning")).isFalse();

    Response patched =
        hub.send(
            "PATCH",
            "/api/v2/clusters/" + id,
            token,
            Map.of("labels", Map.of("team", "t-" + s, "canary", "c-" + s)));
    assertThat(patched.status()).as(patched.raw()).isEqualTo(200);
    JsonNode f = patched.body().get("approvalPolicy");
    assertThat(f.get("name").asText()).isEqualTo("a-canary-" + s);
    assertThat(f.get("tiedWith").get(0).asText()).isEqualTo("z-team-" + s);
    assertThat(f.get("warning").asText()).contains("sorts first");
    // Commands keep working, under the policy that won the tie.
    assertThat(syncWaitsFor(id).get("approvals").get(0).get("requiredApprovers").asInt())
        .isEqualTo(2);
  }

  @Test
  void theClustersOwnEndpointCreatesItsPolicyAndOtherOrganizationsSeeNothing() {
    String s = suffix();
    String id = cluster("dev-" + s, Map.of());
    assertThat(inForce(id)).isNull(); // none attached: the defaults apply
    Response put =
        hub.send(
            "PUT",
            "/api/v2/clusters/" + id + "/approval-policy",
            token,
            Map.of("requireApproval", List.of("sync"), "requiredApprovers", 3));
    assertThat(put.status()).as(put.raw()).isEqualTo(200);
    assertThat(put.body().get("policy").asText()).isEqualTo("cluster-dev-" + s);
    JsonNode p = hub.get("/api/v2/approval-policies/cluster-dev-" + s, token).body();
    assertThat(p.get("clusters")).hasSize(1);
    assertThat(p.get("requiredApprovers").asInt()).isEqualTo(3);
    assertThat(inForce(id).get("attachedBy").asText()).isEqualTo("name");

    String path = "/api/v2/approval-policies/cluster-dev-" + s;
    assertThat(hub.get(path, otherToken).status()).isEqualTo(404);
    assertThat(hub.send("PUT", path, otherToken, policy("cluster-dev-" + s, 1)).status())
        .isEqualTo(404);
    assertThat(hub.send("DELETE", path, otherToken, null).status()).isEqualTo(404);
    assertThat(hub.get("/api/v2/approval-policies", otherToken).raw()).doesNotContain("dev-" + s);

    Response update =
        hub.send("PUT", path, token, policy("cluster-dev-" + s, 1, "clusters", List.of()));
    assertThat(update.status()).as(update.raw()).isEqualTo(200);
    assertThat(inForce(id)).isNull(); // none attached: the defaults apply
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where org_id = ?::uuid and target_id = ?"
                    + " and action = 'approval_policy.attached'",
                orgId,
                "cluster-dev-" + s))
        .isEqualTo(1);
    assertThat(hub.send("DELETE", path, token, null).status()).isEqualTo(204);
    assertThat(hub.get(path, token).status()).isEqualTo(404);
  }

  @Test
  void badInputIsA400NamingTheField() {
    Response r =
        create(
            Map.of(
                "name",
                "Not A Label",
                "requiredApprovers",
                11,
                "selector",
                Map.of(
                    "matchExpressions",
                    List.of(Map.of("key", "tier", "operator", "Near", "values", List.of())))));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.raw())
        .contains("\"name\"")
        .contains("requiredApprovers")
        .contains("selector.matchExpressions[0].operator");
  }
}

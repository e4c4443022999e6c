package dev.gitopshq.hub.policy;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.activities.policy.PolicyText;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The policy API on a real hub, PostgreSQL and the real OPA binary: shipped default, publishing new
 * versions, compile errors from OPA, dry runs, permissions, OPA outages and recovery. The tests
 * share one hub and one policy history, so they run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PolicyApiIT {
  /**
   * Publications in the audit log. Not every entry: hubs of other tests in this JVM share the
   * database and audit their own background work.
   */
  private static final String PUBLISHED =
      "select count(*) from audit_log where action = 'policy.published'";

  private static final ObjectMapper JSON = new ObjectMapper();

  static OpaTestServer opa;
  static HubTestSupport hub;
  static String viewerToken;
  static String shippedRego;

  @BeforeAll
  static void start() throws IOException {
    opa = OpaTestServer.startNew();
    hub =
        new HubTestSupport()
            .property("opa.url", opa.url())
            .property("opa.token", opa.token())
            .property("opa.republish-interval", "300ms")
            .start();
    shippedRego =
        Files.readString(
            OpaTestServer.repoRoot().resolve("policies/gitopshq/approval/decision.rego"));
    Response viewer =
        hub.post(
            "/api/v2/members",
            OWNER_TOKEN,
            Map.of(
                "email",
                "policy-viewer-" + UUID.randomUUID() + "@example.com",
                "name",
                "Pat Viewer",
                "role",
                "viewer"));
    assertThat(viewer.status()).isEqualTo(201);
    hub.grantEverything(viewer.body().get("id").asText());
    viewerToken =
        hub.post(
                "/api/v2/members/" + viewer.body().get("id").asText() + "/tokens",
                OWNER_TOKEN,
                Map.of("name", "t"))
            .body()
            .get("token")
            .asText();
  }

  @AfterAll
  static void stop() {
    if (hub != null) {
      hub.close();
    }
    if (opa != null) {
      opa.close();
    }
  }

  /** A shared sample input from policies/testdata/approval/<name>/data.json. */
  static JsonNode sample(String name) throws IOException {
    Path file =
        OpaTestServer.repoRoot().resolve("policies/testdata/approval/" + name + "/data.json");
    return JSON.readTree(file.toFile()).get("input");
  }

  static Response evaluate(String token, JsonNode input) {
    return hub.post("/api/v2/policies/approval/evaluate", token, Map.of("input", input));
  }

  static Response put(String token, String rego) {
    return hub.send("PUT", "/api/v2/policies/approval", token, Map.of("rego", rego));
  }

  static long approvalVersions() {
    return HubTestSupport.count(
        "select count(*) from policies where name = 'approval'"
            + " and org_id = (select id from organizations where operator)");
  }

  /** The shipped text with production clusters gating sync too: a change a dry run shows. */
  static String gateSyncOnProduction(String rego) {
    String changed =
        rego.replace(
            "\t\"require_approval\": [\"rollback\", \"scale\", \"restart\"],\n"
                + "\t\"auto_approve\": [\"sync\", \"refresh\", \"resolve-drift\"],",
            "\t\"require_approval\": [\"rollback\", \"scale\", \"restart\", \"sync\"],\n"
                + "\t\"auto_approve\": [\"refresh\", \"resolve-drift\"],");
    assertThat(changed).isNotEqualTo(rego);
    return changed;
  }

  @Test
  @Order(1)
  void theShippedDefaultIsVersionOneBySystemAndPublishedToOpa() throws IOException {
    Response list = hub.get("/api/v2/policies", OWNER_TOKEN);
    assertThat(list.status()).isEqualTo(200);
    JsonNode approval = null;
    for (JsonNode item : list.body().get("items")) {
      if (item.get("name").asText().equals("approval")) {
        approval = item;
      }
    }
    assertThat(approval).isNotNull();
    assertThat(approval.get("version").asInt()).isEqualTo(1);
    assertThat(approval.get("createdBy").asText()).isEqualTo("system");

    Response detail = hub.get("/api/v2/policies/approval", viewerToken);
    assertThat(detail.status()).isEqualTo(200);
    assertThat(detail.body().get("rego").asText()).isEqualTo(shippedRego);
    assertThat(detail.body().get("versions")).hasSize(1);

    // Published in the background right after start: OPA answers with version 1.
    JsonNode input = sample("default_production_sync_auto_approved");
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> evaluate(OWNER_TOKEN, input).status() == 200);
    Response r = evaluate(OWNER_TOKEN, input);
    assertThat(r.body().get("policy").asText()).isEqualTo("approval");
    assertThat(r.body().get("version").asInt()).isEqualTo(1);
    assertThat(r.body().get("decision").get("outcome").asText()).isEqualTo("auto_approve");
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where action = 'policy.published' and actor_type = 'system'"
                    + " and org_id = (select id from organizations where operator)"
                    + " and target_id = 'approval'"
                    + " and details like '%\"version\":1%'"))
        .isEqualTo(1);
  }

  @Test
  @Order(2)
  void aPublishedVersionIsStoredAuditedAndUsedByTheNextDecision() throws IOException {
    String v2 = gateSyncOnProduction(shippedRego);
    Response r = put(OWNER_TOKEN, v2);

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body().get("version").asInt()).isEqualTo(2);
    assertThat(r.body().get("previousVersion").asInt()).isEqualTo(1);
    assertThat(r.body().get("changed").asBoolean()).isTrue();
    assertThat(r.body().get("versions").findValuesAsText("version")).containsExactly("2", "1");
    assertThat(r.body().get("versions").get(1).get("active").asBoolean()).isFalse();

    // The dry run says which version decided, and the decision follows version 2's rules.
    Response decided = evaluate(OWNER_TOKEN, sample("default_production_sync_auto_approved"));
    assertThat(decided.status()).isEqualTo(200);
    assertThat(decided.body().get("version").asInt()).isEqualTo(2);
    assertThat(decided.body().get("decision").get("outcome").asText())
        .isEqualTo("require_approval");

    // The audit entry names the versions and fingerprints the text instead of copying it.
    Response audit = hub.get("/api/v2/audit?action=policy.published", OWNER_TOKEN);
    assertThat(audit.status()).isEqualTo(200);
    JsonNode entry = audit.body().get("items").get(0);
    assertThat(entry.toString())
        .contains("\"version\":2")
        .contains("\"previousVersion\":1")
        .contains(PolicyText.sha256(v2))
        .doesNotContain("package gitopshq.approval");

    // The same text again is not a new version.
    Response again = put(OWNER_TOKEN, v2);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.body().get("version").asInt()).isEqualTo(2);
    assertThat(again.body().get("changed").asBoolean()).isFalse();
    assertThat(approvalVersions()).isEqualTo(2);

    Response old = hub.get("/api/v2/policies/approval/versions/1", viewerToken);
    assertThat(old.status()).isEqualTo(200);
    assertThat(old.body().get("rego").asText()).isEqualTo(shippedRego);
    assertThat(old.body().get("active").asBoolean()).isFalse();
    assertThat(hub.get("/api/v2/policies/approval/versions/9", viewerToken).status())
        .isEqualTo(404);
  }

  @Test
  @Order(3)
  void regoThatDoesNotCompileIsRefusedWithLineAndColumnAndTheActiveVersionStays()
      throws IOException {
    long auditBefore = HubTestSupport.count(PUBLISHED);
    // Line 7, column 1: the closing brace arrives where the comparison's right side should be.
    String broken =
        "package gitopshq.approval\n\ndecision := {\"outcome\": \"deny\"}\n\nallow if {\n\tinput.user ==\n}\n";

    Response r = put(OWNER_TOKEN, broken);

    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().get("error").asText()).isEqualTo("invalid_request");
    assertThat(r.body().get("message").asText()).isEqualTo("policy does not compile");
    JsonNode first = r.body().get("errors").get(0);
    assertThat(first.get("field").asText()).isEqualTo("rego");
    assertThat(first.get("reason").asText()).isEqualTo("gitopshq/approval:7:1: unexpected } token");
    JsonNode opaError = r.body().get("opaErrors").get(0);
    assertThat(opaError.get("code").asText()).isEqualTo("rego_parse_error");
    assertThat(opaError.get("message").asText()).isEqualTo("unexpected } token");
    assertThat(opaError.get("location").get("file").asText()).isEqualTo("gitopshq/approval");
    assertThat(opaError.get("location").get("row").asInt()).isEqualTo(7);
    assertThat(opaError.get("location").get("col").asInt()).isEqualTo(1);

    // Nothing stored or audited; version 2 is still active in the database and in OPA.
    assertThat(approvalVersions()).isEqualTo(2);
    assertThat(HubTestSupport.count(PUBLISHED)).isEqualTo(auditBefore);
    assertThat(hub.get("/api/v2/policies/approval", OWNER_TOKEN).body().get("version").asInt())
        .isEqualTo(2);
    Response decided = evaluate(OWNER_TOKEN, sample("default_production_sync_auto_approved"));
    assertThat(decided.status()).isEqualTo(200);
    assertThat(decided.body().get("version").asInt()).isEqualTo(2);
  }

  @Test
  @Order(4)
  void aDryRunForScaleOnAProductionClusterRequiresApprovalAndSaysWhy() throws IOException {
    Response r = evaluate(viewerToken, sample("default_production_scale_requires_approval"));

    assertThat(r.status()).isEqualTo(200);
    JsonNode d = r.body().get("decision");
    assertThat(d.get("outcome").asText()).isEqualTo("require_approval");
    assertThat(d.get("required_approvers").asInt()).isEqualTo(1);
    assertThat(d.get("approver_roles").toString()).isEqualTo("[\"admin\",\"owner\"]");
    assertThat(d.get("reasons").get(0).asText())
        .isEqualTo(
            "scale requires 1 approval on cluster prod-eu (tier:production): default for production clusters");

    Response denied = evaluate(viewerToken, sample("viewer_denied"));
    assertThat(denied.body().get("decision").get("outcome").asText()).isEqualTo("deny");
  }

  @Test
  @Order(5)
  void refusesBadRequestsNamingTheField() {
    Response wrongPackage = put(OWNER_TOKEN, "package gitopshq.freeze\n\ndecision := {}\n");
    assertThat(wrongPackage.status()).isEqualTo(400);
    assertThat(wrongPackage.body().get("errors").get(0).get("field").asText()).isEqualTo("rego");
    assertThat(wrongPackage.body().get("errors").get(0).get("reason").asText())
        .contains("package gitopshq.approval");

    Response reserved =
        put(OWNER_TOKEN, "package gitopshq.approval\n\ngitopshq_policy_version := 99\n");
    assertThat(reserved.status()).isEqualTo(400);
    assertThat(reserved.body().get("errors").get(0).get("reason").asText())
        .contains("gitopshq_policy_version");

    Response badName =
        hub.send("PUT", "/api/v2/policies/Bad_Name", OWNER_TOKEN, Map.of("rego", "package x\n"));
    assertThat(badName.status()).isEqualTo(400);
    assertThat(badName.body().get("errors").get(0).get("field").asText()).isEqualTo("name");

    Response noRego = hub.send("PUT", "/api/v2/policies/approval", OWNER_TOKEN, Map.of());
    assertThat(noRego.status()).isEqualTo(400);
    assertThat(noRego.body().get("errors").get(0).get("field").asText()).isEqualTo("rego");

    Response noInput = hub.post("/api/v2/policies/approval/evaluate", OWNER_TOKEN, Map.of());
    assertThat(noInput.status()).isEqualTo(400);
    assertThat(noInput.body().get("errors").get(0).get("field").asText()).isEqualTo("input");

    assertThat(hub.get("/api/v2/policies/no-such-policy", OWNER_TOKEN).status()).isEqualTo(404);
    assertThat(
            hub.post(
                    "/api/v2/policies/no-such-policy/evaluate",
                    OWNER_TOKEN,
                    Map.of("input", Map.of()))
                .status())
        .isEqualTo(404);
    assertThat(approvalVersions()).isEqualTo(2);
  }

  @Test
  @Order(6)
  void aViewerReadsAndDryRunsButCannotPublish() throws IOException {
    Response r = put(viewerToken, gateSyncOnProduction(shippedRego) + "\n# viewer edit\n");

    assertThat(r.status()).isEqualTo(403);
    assertThat(r.body().get("message").asText()).contains("policies:write");
    assertThat(approvalVersions()).isEqualTo(2);
    assertThat(hub.get("/api/v2/policies", viewerToken).status()).isEqualTo(200);
    assertThat(evaluate(viewerToken, sample("default_staging_scale_auto_approved")).status())
        .isEqualTo(200);
  }

  @Test
  @Order(7)
  void whileOpaIsDownPublishingAnswers503AndStoresNothingThenTheHubRepublishesOnItsOwn()
      throws IOException {
    JsonNode input = sample("default_production_sync_auto_approved");
    long auditBefore = HubTestSupport.count(PUBLISHED);
    opa.stop();

    Response r = put(OWNER_TOKEN, shippedRego);

    assertThat(r.status()).isEqualTo(503);
    assertThat(r.body().get("error").asText()).isEqualTo("opa_unavailable");
    assertThat(r.body().get("message").asText())
        .contains("nothing was stored")
        .contains("version 2 stays active");
    assertThat(approvalVersions()).isEqualTo(2);
    assertThat(HubTestSupport.count(PUBLISHED)).isEqualTo(auditBefore);
    // No decision without OPA: the dry run fails closed too.
    assertThat(evaluate(OWNER_TOKEN, input).status()).isEqualTo(503);

    // OPA comes back empty, as a restarted OPA does; the hub loads version 2 into it by itself.
    opa.start();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> evaluate(OWNER_TOKEN, input).status() == 200);
    Response decided = evaluate(OWNER_TOKEN, input);
    assertThat(decided.body().get("version").asInt()).isEqualTo(2);
    assertThat(decided.body().get("decision").get("outcome").asText())
        .isEqualTo("require_approval");

    // And publishing works again.
    Response back = put(OWNER_TOKEN, shippedRego);
    assertThat(back.status()).isEqualTo(200);
    assertThat(back.body().get("version").asInt()).isEqualTo(3);
    assertThat(evaluate(OWNER_TOKEN, input).body().get("version").asInt()).isEqualTo(3);
  }

  @Test
  @Order(8)
  void theHubStartsWithoutOpaAndPublishesOnceOpaIsUp() throws IOException {
    JsonNode input = sample("default_production_scale_requires_approval");
    hub.stop();
    opa.stop();

    hub.start();

    assertThat(hub.get("/api/v2/policies/approval", OWNER_TOKEN).body().get("version").asInt())
        .isEqualTo(3);
    assertThat(evaluate(OWNER_TOKEN, input).status()).isEqualTo(503);
    opa.start();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> evaluate(OWNER_TOKEN, input).status() == 200);
    assertThat(evaluate(OWNER_TOKEN, input).body().get("version").asInt()).isEqualTo(3);
    // A restart stores no second copy of the shipped default.
    assertThat(approvalVersions()).isEqualTo(3);
  }

  @Test
  @Order(9)
  void aModuleThatReachesOutsideOpaIsRefusedNamingTheBuiltinAndLineAndNothingIsStored() {
    long before = approvalVersions();
    String rego =
        shippedRego
            + "\nleak := http.send({\"method\": \"get\", \"url\": \"http://127.0.0.1:8233/api/v1/namespaces\"})\n"
            + "env := opa.runtime()\n";
    long lines = shippedRego.lines().count();

    Response r = put(OWNER_TOKEN, rego);

    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().get("errors").findValuesAsText("reason"))
        .anySatisfy(
            m -> assertThat(m).startsWith("line " + (lines + 2) + ": calls the built-in http.send"))
        .anySatisfy(
            m ->
                assertThat(m)
                    .startsWith("line " + (lines + 3) + ": calls the built-in opa.runtime"));
    assertThat(approvalVersions()).isEqualTo(before);
  }

  @Test
  @Order(10)
  void decisionsNameTheSha256OfThePolicyTextThatMadeThem() throws IOException {
    Response active = hub.get("/api/v2/policies/approval", OWNER_TOKEN);
    String text = active.body().get("rego").asText();
    Response e = evaluate(OWNER_TOKEN, sample("default_production_scale_requires_approval"));
    assertThat(e.status()).isEqualTo(200);
    assertThat(e.body().get("sha256").asText())
        .isEqualTo(dev.gitopshq.activities.policy.PolicyText.sha256(text));
  }
}

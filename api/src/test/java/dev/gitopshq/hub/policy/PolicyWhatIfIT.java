package dev.gitopshq.hub.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.policy.OpaClient;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.activities.policy.PolicyText;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What-ifs of policy drafts on a real hub, PostgreSQL, the real OPA and the command workflow: real
 * commands are decided by the published approval policy (their inputs recorded), then drafts are
 * evaluated against them without being published. Each organization here is new, on the plan that
 * governs policies, so its history is its own.
 */
class PolicyWhatIfIT {
  static final String SUFFIX = UUID.randomUUID().toString().substring(0, 6);
  static final ObjectMapper JSON = new ObjectMapper();

  static HubTestSupport hub;
  static Org org;
  static Org other;
  static String scaleId;
  static String restartId;
  static String otherScaleId;

  record Org(UUID id, String token, String cluster) {}

  @BeforeAll
  static void start() {
    hub = HubTestSupport.sharedWithOpa();
    org = org("whatif-" + SUFFIX);
    other = org("whatif-other-" + SUFFIX);
    scaleId = command(org, "scale");
    restartId = command(org, "restart");
    otherScaleId = command(other, "scale");
    assertThat(decided(org, scaleId).get("decision").get("outcome").asText())
        .isEqualTo("auto_approve");
    assertThat(decided(org, restartId).get("decision").get("outcome").asText())
        .isEqualTo("require_approval");
    decided(other, otherScaleId);
  }

  /** A new organization on the pro plan with a cluster: scale auto-approved, restart not. */
  static Org org(String slug) {
    JsonNode created = hub.createOrg(slug);
    UUID id = UUID.fromString(created.get("org").get("id").asText());
    HubTestSupport.exec("update organizations set plan = 'pro' where id = ?", id);
    String token = created.get("ownerToken").asText();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                hub.post(
                            "/api/v2/policies/approval/evaluate",
                            token,
                            Map.of("input", Map.of("command", Map.of("type", "sync"))))
                        .status()
                    == 200);
    Response e = hub.post("/api/v2/environments", token, Map.of("name", "prod-" + SUFFIX));
    assertThat(e.status()).as(e.raw()).isEqualTo(201);
    Response c =
        hub.post(
            "/api/v2/clusters",
            token,
            Map.of("name", "wi-" + SUFFIX, "environment", "prod-" + SUFFIX));
    assertThat(c.status()).as(c.raw()).isEqualTo(201);
    String cluster = c.body().get("cluster").get("id").asText();
    HubTestSupport.exec(
        "update clusters set capabilities = ? where id = ?",
        new String[] {"kubernetes.scale", "kubernetes.restart"},
        UUID.fromString(cluster));
    Response bound =
        hub.send(
            "PUT",
            "/api/v2/clusters/" + cluster + "/approval-policy",
            token,
            Map.of("requireApproval", List.of("restart"), "autoApprove", List.of("scale")));
    assertThat(bound.status()).as(bound.raw()).isEqualTo(200);
    return new Org(id, token, cluster);
  }

  static String command(Org o, String type) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", type);
    body.put("target", Map.of("namespace", "demo", "kind", "Deployment", "name", "web"));
    if (type.equals("scale")) {
      body.put("params", Map.of("replicas", 3));
    }
    body.put("reason", "what-if test");
    Response r = hub.post("/api/v2/clusters/" + o.cluster() + "/commands", o.token(), body);
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    return r.body().get("id").asText();
  }

  /** The command once its decision is recorded. */
  static JsonNode decided(Org o, String id) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              last[0] = hub.get("/api/v2/commands/" + id, o.token()).body();
              return last[0].has("decision");
            });
    return last[0];
  }

  static String published(Org o) {
    return hub.get("/api/v2/policies/approval", o.token()).body().get("rego").asText();
  }

  /** The published text with scale requiring approval everywhere: flips the scale decision. */
  static String scaleNeedsApproval(String rego) {
    String changed =
        rego.replace(
            "} else := \"require_approval\" if {\n\tcommand_type in require_list\n}",
            "} else := \"require_approval\" if {\n\tcommand_type == \"scale\"\n"
                + "} else := \"require_approval\" if {\n\tcommand_type in require_list\n}");
    assertThat(changed).isNotEqualTo(rego);
    return changed;
  }

  static Response whatIf(String token, String rego, Integer limit) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("rego", rego);
    if (limit != null) {
      body.put("limit", limit);
    }
    return hub.post("/api/v2/policies/approval/what-if", token, body);
  }

  static List<String> subjects(JsonNode rows) {
    List<String> out = new ArrayList<>();
    rows.forEach(r -> out.add(r.get("subjectId").asText()));
    return out;
  }

  @Test
  void aDraftThatFlipsOneDecisionListsThatOneWithBothOutcomesAndItsInput() {
    Response r = whatIf(org.token(), scaleNeedsApproval(published(org)), null);

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().get("limit").asInt()).isEqualTo(100);
    assertThat(r.body().get("evaluated").asInt()).isGreaterThanOrEqualTo(2);
    assertThat(subjects(r.body().get("changed"))).contains(scaleId).doesNotContain(restartId);
    JsonNode row = null;
    for (JsonNode c : r.body().get("changed")) {
      if (c.get("subjectId").asText().equals(scaleId)) {
        row = c;
      }
    }
    assertThat(row.get("kind").asText()).isEqualTo("command");
    assertThat(row.get("recordedOutcome").asText()).isEqualTo("auto_approve");
    assertThat(row.get("draftOutcome").asText()).isEqualTo("require_approval");
    assertThat(row.get("recordedReasons").get(0).asText()).contains("auto-approved");
    assertThat(row.get("draftReasons").get(0).asText()).contains("scale requires");
    assertThat(row.get("input").get("command").get("type").asText()).isEqualTo("scale");
  }

  @Test
  void aDraftIdenticalToThePublishedOneChangesNothing() {
    Response r = whatIf(org.token(), published(org), 500);

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().get("evaluated").asInt()).isGreaterThanOrEqualTo(2);
    assertThat(r.body().get("changed")).isEmpty();
  }

  @Test
  void onlyTheCallersOrganizationsDecisionsAreEvaluated() {
    Response r = whatIf(org.token(), scaleNeedsApproval(published(org)), 500);

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(subjects(r.body().get("changed"))).doesNotContain(otherScaleId);
    long mine =
        HubTestSupport.count(
            "select count(*) from commands where org_id = ? and policy_name = 'approval'",
            org.id());
    assertThat(r.body().get("found").asLong()).isEqualTo(mine);
  }

  @Test
  void liveDecisionsUseThePublishedPolicyDuringAndAfterTheWhatIfAndNoDraftStaysInOpa()
      throws Exception {
    String draft = scaleNeedsApproval(published(org));
    CompletableFuture<Response> running =
        CompletableFuture.supplyAsync(() -> whatIf(org.token(), draft, 500));
    String during = command(org, "scale");
    assertThat(running.get().status()).isEqualTo(200);
    String after = command(org, "scale");

    for (String id : List.of(during, after)) {
      JsonNode decision = decided(org, id).get("decision");
      assertThat(decision.get("outcome").asText()).isEqualTo("auto_approve");
    }
    assertThat(
            HubTestSupport.count(
                "select count(*) from policies where org_id = ? and name = 'approval'", org.id()))
        .as("the draft was not published")
        .isEqualTo(1);
    try (OpaClient opa = hub.opa().client()) {
      assertThat(opa.listPolicyIds()).noneMatch(id -> id.startsWith("whatif/"));
    }
  }

  @Test
  void theWhatIfIsAuditedWithTheDraftsSha256LimitAndCount() {
    String draft = scaleNeedsApproval(published(org));
    Response r = whatIf(org.token(), draft, 50);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);

    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where org_id = ? and action = 'policy.what_if'"
                    + " and details::jsonb->>'sha256' = ? and (details::jsonb->>'limit')::int = 50"
                    + " and (details::jsonb->>'changed')::int = ?",
                org.id(),
                PolicyText.sha256(draft),
                r.body().get("changed").size()))
        .isEqualTo(1);
  }

  @Test
  void aDecisionRecordedWithoutItsInputIsListedAsSuchNotGuessed() {
    Org o = org("whatif-old-" + SUFFIX);
    String old = command(o, "scale");
    decided(o, old);
    // As a decision recorded before V52 is stored.
    HubTestSupport.exec(
        "update commands set decision_input = null where id = ?", UUID.fromString(old));

    Response r = whatIf(o.token(), scaleNeedsApproval(published(o)), null);

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().get("evaluated").asInt()).isZero();
    assertThat(r.body().get("changed")).isEmpty();
    JsonNode row = r.body().get("inputNotRecorded").get(0);
    assertThat(row.get("subjectId").asText()).isEqualTo(old);
    assertThat(row.get("note").asText()).isEqualTo("input not recorded");
    assertThat(row.get("recordedOutcome").asText()).isEqualTo("auto_approve");
  }

  @Test
  void aDeploymentsRecordedDecisionIsEvaluatedAndListedWhenTheDraftChangesIt() throws Exception {
    Org o = org("whatif-rel-" + SUFFIX);
    JsonNode input =
        JSON.readTree(
                OpaTestServer.repoRoot()
                    .resolve("policies/testdata/release/deploy_dev_auto_approved/data.json")
                    .toFile())
            .get("input");
    // Recorded as the hub records a deployment's decision: what the published policy decided,
    // with the input it decided on.
    // The release policy reaches OPA in the republisher's next pass.
    Response[] live = new Response[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              live[0] =
                  hub.post("/api/v2/policies/release/evaluate", o.token(), Map.of("input", input));
              return live[0].status() == 200;
            });
    JsonNode decision = live[0].body().get("decision");
    List<String> reasons = new ArrayList<>();
    decision.get("reasons").forEach(r -> reasons.add(r.asText()));
    UUID project = UUID.randomUUID();
    UUID release = UUID.randomUUID();
    UUID deployment = UUID.randomUUID();
    HubTestSupport.exec(
        "insert into projects (id, org_id, name, created_by, created_at, updated_at)"
            + " values (?, ?, 'shop', 'test', now(), now())",
        project,
        o.id());
    HubTestSupport.exec(
        "insert into releases (id, org_id, project_id, number, kind, config_revision,"
            + " requested_by, requester_name, created_at)"
            + " values (?, ?, ?, 1, 'standard', 1, 'test', 'test', now())",
        release,
        o.id(),
        project);
    HubTestSupport.exec(
        "insert into deployments (id, org_id, project_id, release_id, action, environment_ids,"
            + " status, policy_name, policy_version, decision_outcome, decision_reasons,"
            + " decision_input, decided_at, requested_by, requester_name, created_at, updated_at)"
            + " values (?, ?, ?, ?, 'deploy', '{}', 'deployed', 'release', 1, ?, ?,"
            + " cast(? as jsonb), now(), 'test', 'test', now(), now())",
        deployment,
        o.id(),
        project,
        release,
        decision.get("outcome").asText(),
        reasons.toArray(new String[0]),
        input.toString());
    String rego = hub.get("/api/v2/policies/release", o.token()).body().get("rego").asText();

    Response same = hub.post("/api/v2/policies/release/what-if", o.token(), Map.of("rego", rego));
    String denyAll = rego.replace("\n} else := \"auto_approve\"\n", "\n} else := \"deny\"\n");
    assertThat(denyAll).isNotEqualTo(rego);
    Response flipped =
        hub.post("/api/v2/policies/release/what-if", o.token(), Map.of("rego", denyAll));

    assertThat(same.status()).as(same.raw()).isEqualTo(200);
    assertThat(same.body().get("evaluated").asInt()).isEqualTo(1);
    assertThat(same.body().get("changed")).isEmpty();
    assertThat(flipped.status()).as(flipped.raw()).isEqualTo(200);
    JsonNode row = flipped.body().get("changed").get(0);
    assertThat(row.get("kind").asText()).isEqualTo("deployment");
    assertThat(row.get("subjectId").asText()).isEqualTo(deployment.toString());
    assertThat(row.get("recordedOutcome").asText()).isEqualTo("auto_approve");
    assertThat(row.get("draftOutcome").asText()).isEqualTo("deny");
  }

  @Test
  void aFreezeDecisionIsRecordedWithItsInputAndADraftOfTheFreezePolicyThatChangesItListsIt() {
    Org o = org("whatif-fz-" + SUFFIX);
    Instant now = Instant.now();
    Response window =
        hub.post(
            "/api/v2/freeze-windows",
            o.token(),
            Map.of(
                "environment",
                "prod-" + SUFFIX,
                "startsAt",
                now.minus(1, ChronoUnit.HOURS).toString(),
                "endsAt",
                now.plus(2, ChronoUnit.HOURS).toString(),
                "reason",
                "what-if freeze",
                "commandTypes",
                List.of("scale")));
    assertThat(window.status()).as(window.raw()).isEqualTo(201);
    String frozen = command(o, "scale");
    String rego = hub.get("/api/v2/policies/freeze", o.token()).body().get("rego").asText();
    // The freeze decision is recorded when the command workflow asks the freeze policy.
    Response[] same = new Response[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              same[0] =
                  hub.post("/api/v2/policies/freeze/what-if", o.token(), Map.of("rego", rego));
              return same[0].status() == 200 && same[0].body().get("evaluated").asInt() == 1;
            });
    assertThat(same[0].body().get("changed"))
        .as("the published text decides as recorded")
        .isEmpty();

    String letThrough = rego.replace("\"blocked\": blocked,", "\"blocked\": false,");
    assertThat(letThrough).isNotEqualTo(rego);
    Response flipped =
        hub.post("/api/v2/policies/freeze/what-if", o.token(), Map.of("rego", letThrough));
    assertThat(flipped.status()).as(flipped.raw()).isEqualTo(200);
    JsonNode row = flipped.body().get("changed").get(0);
    assertThat(row.get("kind").asText()).isEqualTo("command");
    assertThat(row.get("subjectId").asText()).isEqualTo(frozen);
    assertThat(row.get("recordedOutcome").asText()).isEqualTo("blocked");
    assertThat(row.get("draftOutcome").asText()).isEqualTo("frozen");
    assertThat(row.get("recordedReasons").get(0).asText()).contains("is frozen for scale");
    assertThat(row.get("input").get("action").asText()).isEqualTo("command");
    assertThat(row.get("input").get("command").get("type").asText()).isEqualTo("scale");
  }

  @Test
  void badRequestsAre400NamingTheFieldAndOpasError() {
    Response bad = whatIf(org.token(), published(org) + "\nbroken := {\n", null);
    assertThat(bad.status()).as(bad.raw()).isEqualTo(400);
    assertThat(bad.body().get("errors").get(0).get("field").asText()).isEqualTo("rego");
    assertThat(bad.body().get("errors").get(0).get("reason").asText())
        .startsWith("gitopshq/approval:")
        .doesNotContain("whatif")
        .doesNotContain("org_");

    Response tooMany = whatIf(org.token(), published(org), 501);
    assertThat(tooMany.status()).isEqualTo(400);
    assertThat(tooMany.body().get("errors").get(0).get("field").asText()).isEqualTo("limit");

    Response none = whatIf(org.token(), " ", null);
    assertThat(none.status()).isEqualTo(400);
    assertThat(none.body().get("errors").get(0).get("field").asText()).isEqualTo("rego");

    Response unknown =
        hub.post(
            "/api/v2/policies/nope/what-if", org.token(), Map.of("rego", "package gitopshq.nope"));
    assertThat(unknown.status()).isEqualTo(404);
  }

  @Test
  void aViewerCannotRunAWhatIf() {
    Response r = whatIf(hub.memberToken("viewer"), "package gitopshq.approval\n", null);
    assertThat(r.status()).isEqualTo(403);
  }
}

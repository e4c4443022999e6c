package dev.gitopshq.hub.features;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Plan gates on a real hub and PostgreSQL: for every gate {@code GET /features} reports, an
 * organization whose plan lacks it is refused with {@code 403 feature_not_in_plan} naming the gate
 * and the plan, and an organization on the gate's plan gets past it. Each organization is new, and
 * its plan is set in the store as an operator would.
 */
class FeatureGatesIT {
  static HubTestSupport hub;
  static Org free;
  static Org pro;
  static Org enterprise;

  record Org(UUID id, String ownerToken, String ownerId) {}

  @BeforeAll
  static void start() {
    hub = HubTestSupport.sharedWithOpa();
    free = org("free");
    pro = org("pro");
    enterprise = org("enterprise");
  }

  static Org org(String plan) {
    JsonNode created =
        hub.createOrg("plan-" + plan + "-" + UUID.randomUUID().toString().substring(0, 8));
    UUID id = UUID.fromString(created.get("org").get("id").asText());
    HubTestSupport.exec("update organizations set plan = ? where id = ?", plan, id);
    return new Org(id, created.get("ownerToken").asText(), created.get("ownerId").asText());
  }

  static void assertRefused(Response r, String feature, String plan) {
    assertThat(r.status()).as(r.raw()).isEqualTo(403);
    assertThat(r.body().get("error").asText()).isEqualTo("feature_not_in_plan");
    assertThat(r.body().get("feature").asText()).isEqualTo(feature);
    assertThat(r.body().get("plan").asText()).isEqualTo(plan);
    assertThat(r.body().get("message").asText()).contains(feature).contains(plan);
  }

  static String project() {
    return "/api/v2/projects/" + UUID.randomUUID();
  }

  @Test
  void featuresReportsTheOrganizationsPlanAndOnlyGatesThatExist() {
    Response r = hub.get("/api/v2/features", free.ownerToken());
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body().get("plan").asText()).isEqualTo("free");
    List<String> gates = new ArrayList<>();
    r.body().get("features").fieldNames().forEachRemaining(gates::add);
    assertThat(gates)
        .containsExactly(
            "FeaturePromotion",
            "FeatureRollback",
            "FeatureSelectiveRollback",
            "FeatureRollbackApproval",
            "FeatureTeams",
            "FeatureNotifications",
            "FeatureValuesGovernance");
    r.body().get("features").forEach(open -> assertThat(open.asBoolean()).isFalse());
    assertThat(r.body().get("requiredPlans").get("FeatureSelectiveRollback").asText())
        .isEqualTo("enterprise");

    Response p = hub.get("/api/v2/features", pro.ownerToken());
    assertThat(p.body().get("plan").asText()).isEqualTo("pro");
    assertThat(p.body().get("features").get("FeaturePromotion").asBoolean()).isTrue();
    assertThat(p.body().get("features").get("FeatureSelectiveRollback").asBoolean()).isFalse();
  }

  @Test
  void theOperatorsOwnerChangesAnOrganizationsPlanAuditedAndItsGatesFollowAtOnce() {
    Org org = org("free");
    String promote = project() + "/releases/1/promote";
    assertRefused(hub.post(promote, org.ownerToken(), Map.of()), "FeaturePromotion", "free");

    Response changed =
        hub.send(
            "PUT",
            "/api/v2/orgs/" + org.id() + "/plan",
            HubTestSupport.OWNER_TOKEN,
            Map.of("plan", "pro"));
    assertThat(changed.status()).as(changed.raw()).isEqualTo(200);
    assertThat(changed.body().get("plan").asText()).isEqualTo("pro");
    assertThat(hub.get("/api/v2/features", org.ownerToken()).body().get("plan").asText())
        .isEqualTo("pro");
    assertThat(hub.post(promote, org.ownerToken(), Map.of()).status())
        .as("past the gate: the project does not exist")
        .isEqualTo(404);
    JsonNode audited =
        hub.get("/api/v2/audit?action=org.plan_changed&target=" + org.id(), org.ownerToken())
            .body()
            .get("items");
    assertThat(audited).hasSize(1);
    assertThat(audited.get(0).get("details").get("from").asText()).isEqualTo("free");
    assertThat(audited.get(0).get("details").get("to").asText()).isEqualTo("pro");

    // The organization's own owner may not change its plan; nor may anyone name a plan that
    // does not exist, or an organization that does not.
    Response own =
        hub.send(
            "PUT",
            "/api/v2/orgs/" + org.id() + "/plan",
            org.ownerToken(),
            Map.of("plan", "enterprise"));
    assertThat(own.status()).as(own.raw()).isEqualTo(403);
    Response bad =
        hub.send(
            "PUT",
            "/api/v2/orgs/" + org.id() + "/plan",
            HubTestSupport.OWNER_TOKEN,
            Map.of("plan", "platinum"));
    assertThat(bad.status()).as(bad.raw()).isEqualTo(400);
    assertThat(bad.body().get("errors").findValuesAsText("field")).containsExactly("plan");
    Response missing =
        hub.send(
            "PUT",
            "/api/v2/orgs/" + UUID.randomUUID() + "/plan",
            HubTestSupport.OWNER_TOKEN,
            Map.of("plan", "pro"));
    assertThat(missing.status()).as(missing.raw()).isEqualTo(404);
    assertThat(hub.get("/api/v2/features", org.ownerToken()).body().get("plan").asText())
        .isEqualTo("pro");
  }

  @Test
  void promotionNeedsPro() {
    String path = project() + "/releases/1/promote";
    assertRefused(hub.post(path, free.ownerToken(), Map.of()), "FeaturePromotion", "free");
    // Past the gate, the request reaches the project, which this organization does not have.
    assertThat(hub.post(path, pro.ownerToken(), Map.of()).status()).isEqualTo(404);
  }

  @Test
  void rollbackNeedsPro() {
    String path = project() + "/rollbacks";
    Map<String, Object> body = Map.of("toRelease", 1, "scope", "all");
    assertRefused(hub.post(path, free.ownerToken(), body), "FeatureRollback", "free");
    assertThat(hub.post(path, pro.ownerToken(), body).status()).isEqualTo(404);
  }

  @Test
  void aScopedRollbackNeedsEnterprise() {
    String path = project() + "/rollbacks";
    Map<String, Object> scoped =
        Map.of("toRelease", 1, "scope", List.of(Map.of("environment", "production")));
    assertRefused(hub.post(path, pro.ownerToken(), scoped), "FeatureSelectiveRollback", "pro");
    assertThat(hub.post(path, enterprise.ownerToken(), scoped).status()).isEqualTo(404);
  }

  @Test
  void approvingARollbackNeedsEnterprise() {
    String onPro = rollbackApproval(pro);
    assertRefused(
        hub.post("/api/v2/approvals/" + onPro + "/approve", pro.ownerToken(), Map.of()),
        "FeatureRollbackApproval",
        "pro");
    // On enterprise the vote gets past the gate to the approval, which is already decided.
    String onEnterprise = rollbackApproval(enterprise);
    Response r =
        hub.post(
            "/api/v2/approvals/" + onEnterprise + "/approve", enterprise.ownerToken(), Map.of());
    assertThat(r.status()).as(r.raw()).isEqualTo(409);
    assertThat(r.body().get("message").asText()).contains("already approved");
  }

  /** A decided rollback approval someone else asked for, in the organization. */
  static String rollbackApproval(Org org) {
    String id = "rollback-" + UUID.randomUUID();
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    HubTestSupport.exec(
        "insert into approvals (id, org_id, kind, subject_id, requester_id, required_approvers,"
            + " approver_roles, approver_teams, summary, status, created_at, expires_at)"
            + " values (?, ?, 'rollback', ?, 'someone-else', 1, '{}', '{}', 'roll back', 'approved',"
            + " ?, ?)",
        id,
        org.id(),
        UUID.randomUUID(),
        Timestamp.from(now),
        Timestamp.from(now.plusSeconds(3600)));
    return id;
  }

  @Test
  void teamsNeedPro() {
    Map<String, Object> withTeams = member(List.of("payments"));
    assertRefused(
        hub.post("/api/v2/members", free.ownerToken(), withTeams), "FeatureTeams", "free");
    // Members without teams are the free plan's.
    Response plain = hub.post("/api/v2/members", free.ownerToken(), member(List.of()));
    assertThat(plain.status()).as(plain.raw()).isEqualTo(201);
    assertRefused(
        hub.patch(
            "/api/v2/members/" + plain.body().get("id").asText(),
            free.ownerToken(),
            Map.of("teams", List.of("payments"))),
        "FeatureTeams",
        "free");

    Response onPro = hub.post("/api/v2/members", pro.ownerToken(), withTeams);
    assertThat(onPro.status()).as(onPro.raw()).isEqualTo(201);
    assertThat(onPro.body().get("teams").get(0).asText()).isEqualTo("payments");
  }

  static Map<String, Object> member(List<String> teams) {
    return Map.of(
        "email",
        "gated-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com",
        "name",
        "Gated",
        "role",
        "member",
        "teams",
        teams);
  }

  @Test
  void notificationsNeedPro() {
    Map<String, Object> webhook =
        Map.of(
            "webhookUrl", "https://198.20.0.1/gitopshq", "secret", "plan-gate-secret-0123456789");
    assertRefused(
        hub.send("PUT", "/api/v2/notifications", free.ownerToken(), webhook),
        "FeatureNotifications",
        "free");
    assertRefused(
        hub.post("/api/v2/notifications/test", free.ownerToken(), Map.of()),
        "FeatureNotifications",
        "free");
    Response onPro = hub.send("PUT", "/api/v2/notifications", pro.ownerToken(), webhook);
    assertThat(onPro.status()).as(onPro.raw()).isEqualTo(200);
    assertThat(onPro.body().get("webhookUrl").asText()).isEqualTo("https://198.20.0.1/gitopshq");
  }

  @Test
  void publishingAPolicyNeedsPro() {
    String rego =
        hub.get("/api/v2/policies/approval", free.ownerToken()).body().get("rego").asText();
    assertRefused(
        hub.send("PUT", "/api/v2/policies/approval", free.ownerToken(), Map.of("rego", rego)),
        "FeatureValuesGovernance",
        "free");
    Response onPro =
        hub.send("PUT", "/api/v2/policies/approval", pro.ownerToken(), Map.of("rego", rego));
    assertThat(onPro.status()).as(onPro.raw()).isEqualTo(200);
  }
}

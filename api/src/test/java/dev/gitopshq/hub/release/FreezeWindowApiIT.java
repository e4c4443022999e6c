package dev.gitopshq.hub.release;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.policy.FreezeService;
import dev.gitopshq.activities.policy.OpaClient;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.activities.policy.OpaUnavailableException;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.workflows.governance.FreezeCheck;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Freeze windows on a real hub, PostgreSQL and the real OPA binary: a window created through the
 * API freezes its environment in the {@code gitopshq.freeze} decision the release pipeline asks
 * for, break-glass with a justification passes, deleting it unfreezes, an OPA that restarts empty
 * gets the windows back from the hub's sync, bad requests name their fields, and viewers only read.
 * The tests share one hub and one list of windows, so they run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FreezeWindowApiIT {
  // Names of this test's own: the database is shared with the other hub tests of the run.
  static final String PRODUCTION = "fz-production";
  static final String STAGING = "fz-staging";
  static final String PROJECT = "fz-shop";
  static final String OTHER_PROJECT = "fz-billing";

  static final Instant INSIDE = Instant.parse("2030-12-20T10:00:00Z");

  static OpaTestServer opa;
  static HubTestSupport hub;
  static OpaClient opaDirect;
  static UUID orgId;
  static UUID projectId;
  static String viewerToken;
  static String memberToken;
  static String yearEndId;

  @BeforeAll
  static void start() throws SQLException {
    hub = HubTestSupport.sharedWithOpa();
    opa = hub.opa();
    opaDirect = opa.operatorClient(); // the hub's own token may not read data documents
    orgId = HubTestSupport.defaultOrgId();
    insertEnvironment(STAGING, 2);
    insertEnvironment(PRODUCTION, 3);
    projectId = insertProject(PROJECT);
    insertProject(OTHER_PROJECT);
    viewerToken = token("viewer");
    memberToken = token("member");

    // The hub seeds the shipped freeze policy and loads it into OPA in the background.
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(200))
        .ignoreException(OpaUnavailableException.class)
        .until(() -> check(STAGING, false, "") != null);
  }

  @AfterAll
  static void stop() {
    if (opaDirect != null) {
      opaDirect.close();
    }
  }

  // ---- helpers ------------------------------------------------------------------------------

  static UUID uuid(String sql, Object... args) throws SQLException {
    try (Connection c = HubTestSupport.db();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as(sql).isTrue();
        return rs.getObject(1, UUID.class);
      }
    }
  }

  /** Environments as rows: creating one through the API would recommit every project of the org. */
  static void insertEnvironment(String name, int position) {
    HubTestSupport.exec(
        "insert into environments (id, org_id, name, position, created_at)"
            + " values (?, ?, ?, ?, now()) on conflict (org_id, name) do nothing",
        UUID.randomUUID(),
        orgId,
        name,
        position);
  }

  /** A project through the projects API (with its repository), or the one of that name. */
  static UUID insertProject(String name) throws SQLException {
    Response created = hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", name));
    assertThat(created.status()).as(created.raw()).isIn(201, 409);
    return uuid("select id from projects where org_id = ? and name = ?", orgId, name);
  }

  static String token(String role) {
    return hub.memberToken(role);
  }

  /** The freeze decision through the hub's service, as the release activity asks for it. */
  static FreezeCheck check(String environment, boolean breakGlass, String justification) {
    return checkAt(INSIDE, List.of(environment), breakGlass, justification);
  }

  static FreezeCheck checkAt(
      Instant at, List<String> environments, boolean breakGlass, String justification) {
    return hub.bean(FreezeService.class)
        .check(
            orgId,
            new FreezeService.Request(
                "promote",
                projectId.toString(),
                PROJECT,
                environments,
                breakGlass,
                justification,
                at));
  }

  static Response create(String token, Map<String, ?> body) {
    return hub.post("/api/v2/freeze-windows", token, body);
  }

  static Map<String, Object> window(
      String environment, String project, String startsAt, String endsAt, String reason) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (environment != null) {
      m.put("environment", environment);
    }
    if (project != null) {
      m.put("project", project);
    }
    m.put("startsAt", startsAt);
    m.put("endsAt", endsAt);
    m.put("reason", reason);
    return m;
  }

  static long windowCount() {
    return HubTestSupport.count("select count(*) from freeze_windows");
  }

  /** The window ids OPA holds right now, read from OPA itself. */
  static List<String> idsInOpa() {
    java.util.UUID org =
        java.util.UUID.fromString(
            hub.get("/api/v2/me", OWNER_TOKEN).body().get("org").get("id").asText());
    JsonNode doc = opaDirect.evaluate(FreezeService.dataPath(org), null);
    List<String> ids = new ArrayList<>();
    doc.forEach(w -> ids.add(w.get("id").asText()));
    return ids;
  }

  static List<String> fields(Response r) {
    List<String> out = new ArrayList<>();
    r.body().get("errors").forEach(e -> out.add(e.get("field").asText()));
    return out;
  }

  // ---- tests -----------------------------------------------------------------------------------

  @Test
  @Order(1)
  void aWindowForAnEnvironmentBlocksItsDeploymentsWithTheReason() {
    assertThat(check(PRODUCTION, false, "").frozen()).isFalse();

    Response r =
        create(
            OWNER_TOKEN,
            window(
                PRODUCTION,
                null,
                "2030-12-18T00:00:00Z",
                "2030-12-27T00:00:00Z",
                "year-end freeze"));

    assertThat(r.status()).isEqualTo(201);
    yearEndId = r.body().get("id").asText();
    assertThat(r.body().get("environment").asText()).isEqualTo(PRODUCTION);
    assertThat(r.body().has("project")).isFalse();
    assertThat(r.body().get("startsAt").asText()).isEqualTo("2030-12-18T00:00:00Z");
    assertThat(r.body().get("endsAt").asText()).isEqualTo("2030-12-27T00:00:00Z");
    assertThat(r.body().get("reason").asText()).isEqualTo("year-end freeze");
    assertThat(r.body().get("active").asBoolean()).isFalse();

    // Written to OPA by the change itself: a dry run (which writes nothing) already sees it.
    Map<String, Object> input =
        Map.of(
            "action", "deploy",
            "project", Map.of("id", projectId.toString(), "name", PROJECT),
            "environments", List.of(Map.of("name", PRODUCTION)),
            "break_glass", Map.of("requested", false, "justification", ""),
            "time", "2030-12-20T10:00:00Z");
    Response dryRun =
        hub.post("/api/v2/policies/freeze/evaluate", OWNER_TOKEN, Map.of("input", input));
    assertThat(dryRun.status()).isEqualTo(200);
    assertThat(dryRun.body().get("decision").get("blocked").asBoolean()).isTrue();
    assertThat(dryRun.body().get("decision").get("windows").get(0).asText()).isEqualTo(yearEndId);

    FreezeCheck c = check(PRODUCTION, false, "");
    assertThat(c.policy()).isEqualTo("freeze");
    assertThat(c.policyVersion()).isEqualTo(1);
    assertThat(c.frozen()).isTrue();
    assertThat(c.blocked()).isTrue();
    assertThat(c.reasons().get(0))
        .isEqualTo(PRODUCTION + " is frozen until 2030-12-27T00:00:00Z: year-end freeze");

    // Outside the window, production deploys again: the start is inclusive, the end is not.
    assertThat(
            checkAt(Instant.parse("2030-12-18T00:00:00Z"), List.of(PRODUCTION), false, "")
                .blocked())
        .isTrue();
    assertThat(
            checkAt(Instant.parse("2030-12-27T00:00:00Z"), List.of(PRODUCTION), false, "").frozen())
        .isFalse();

    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where action = 'freeze_window.created' and target_id = ?"
                    + " and details like '%year-end freeze%' and details like ?",
                yearEndId, "%\"environment\":\"" + PRODUCTION + "\"%"))
        .isEqualTo(1);
  }

  @Test
  @Order(2)
  void anotherEnvironmentIsNotFrozen() {
    FreezeCheck c = check(STAGING, false, "");
    assertThat(c.frozen()).isFalse();
    assertThat(c.blocked()).isFalse();
    assertThat(c.reasons())
        .containsExactly("no freeze window covers " + STAGING + " at 2030-12-20T10:00:00Z");

    // A promotion that also touches production is blocked, naming only production.
    FreezeCheck both = checkAt(INSIDE, List.of(STAGING, PRODUCTION), false, "");
    assertThat(both.blocked()).isTrue();
    assertThat(both.reasons().get(0)).startsWith(PRODUCTION + " is frozen until");
  }

  @Test
  @Order(3)
  void breakGlassWithAJustificationPassesAFreezeButWithoutOneDoesNot() {
    FreezeCheck passes = check(PRODUCTION, true, "payment provider outage, hotfix INC-4177");
    assertThat(passes.frozen()).isTrue();
    assertThat(passes.blocked()).isFalse();
    assertThat(passes.reasons())
        .containsExactly(
            PRODUCTION + " is frozen until 2030-12-27T00:00:00Z: year-end freeze",
            "break-glass overrides the freeze for this promotion; justification: payment provider outage, hotfix INC-4177");

    FreezeCheck blank = check(PRODUCTION, true, "   ");
    assertThat(blank.blocked()).isTrue();
    assertThat(blank.reasons().get(1))
        .isEqualTo(
            "break-glass was requested without a justification, so the freeze blocks this promotion");
  }

  @Test
  @Order(4)
  void listsWindowsAndFiltersThoseCoveringNow() {
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Response current =
        create(
            OWNER_TOKEN,
            window(
                null,
                PROJECT,
                now.minusSeconds(3600).toString(),
                now.plusSeconds(3600).toString(),
                "launch day"));
    assertThat(current.status()).isEqualTo(201);
    String currentId = current.body().get("id").asText();
    assertThat(current.body().has("environment")).isFalse();
    assertThat(current.body().get("project").asText()).isEqualTo(PROJECT);
    assertThat(current.body().get("active").asBoolean()).isTrue();

    Response all = hub.get("/api/v2/freeze-windows", viewerToken);
    assertThat(all.status()).isEqualTo(200);
    assertThat(all.body().get("items").findValuesAsText("id")).contains(yearEndId, currentId);

    Response active = hub.get("/api/v2/freeze-windows?active=true", viewerToken);
    assertThat(active.body().get("items").findValuesAsText("id"))
        .contains(currentId)
        .doesNotContain(yearEndId);
    Response inactive = hub.get("/api/v2/freeze-windows?active=false", viewerToken);
    assertThat(inactive.body().get("items").findValuesAsText("id"))
        .contains(yearEndId)
        .doesNotContain(currentId);

    Response one = hub.get("/api/v2/freeze-windows/" + yearEndId, viewerToken);
    assertThat(one.status()).isEqualTo(200);
    assertThat(one.body().get("reason").asText()).isEqualTo("year-end freeze");

    // The project window freezes every environment of that project now, and no other project.
    FreezeCheck shop = checkAt(now, List.of(STAGING), false, "");
    assertThat(shop.blocked()).isTrue();
    assertThat(shop.reasons().get(0))
        .startsWith(STAGING + " is frozen for project " + PROJECT + " until");
    FreezeCheck billing =
        hub.bean(FreezeService.class)
            .check(
                orgId,
                new FreezeService.Request(
                    "deploy", "x", OTHER_PROJECT, List.of(STAGING), false, "", now));
    assertThat(billing.frozen()).isFalse();

    assertThat(
            hub.send("DELETE", "/api/v2/freeze-windows/" + currentId, OWNER_TOKEN, null).status())
        .isEqualTo(204);
  }

  @Test
  @Order(5)
  void deletingTheWindowUnfreezesTheEnvironment() {
    Response r = hub.send("DELETE", "/api/v2/freeze-windows/" + yearEndId, OWNER_TOKEN, null);

    assertThat(r.status()).isEqualTo(204);
    assertThat(idsInOpa()).doesNotContain(yearEndId);
    FreezeCheck c = check(PRODUCTION, false, "");
    assertThat(c.frozen()).isFalse();
    assertThat(c.blocked()).isFalse();
    assertThat(hub.get("/api/v2/freeze-windows/" + yearEndId, OWNER_TOKEN).status()).isEqualTo(404);
    assertThat(
            hub.send("DELETE", "/api/v2/freeze-windows/" + yearEndId, OWNER_TOKEN, null).status())
        .isEqualTo(404);
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where action = 'freeze_window.deleted' and target_id = ?"
                    + " and details like '%year-end freeze%'",
                yearEndId))
        .isEqualTo(1);
  }

  @Test
  @Order(6)
  void anOpaThatRestartsEmptyGetsTheWindowsBackFromTheSync() {
    Response before =
        create(
            OWNER_TOKEN,
            window(
                PRODUCTION,
                PROJECT,
                "2030-12-18T00:00:00Z",
                "2030-12-27T00:00:00Z",
                "year-end freeze"));
    assertThat(before.status()).isEqualTo(201);
    String first = before.body().get("id").asText();

    opa.stop();
    // OPA is down: the window is still stored (and the push is only logged).
    Response during =
        create(
            OWNER_TOKEN,
            window(null, null, "2030-05-01T00:00:00Z", "2030-05-02T00:00:00Z", "data-center move"));
    assertThat(during.status()).isEqualTo(201);
    String second = during.body().get("id").asText();
    assertThat(
            HubTestSupport.count(
                "select count(*) from freeze_windows where id in (?, ?)",
                UUID.fromString(first),
                UUID.fromString(second)))
        .isEqualTo(2);

    opa.start();
    // Read OPA's own copy: the service's check() would write the windows itself.
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .ignoreException(OpaUnavailableException.class)
        .until(() -> idsInOpa().containsAll(List.of(first, second)));
    assertThat(check(PRODUCTION, false, "").blocked()).isTrue();
    assertThat(
            checkAt(Instant.parse("2030-05-01T12:00:00Z"), List.of(STAGING), false, "")
                .reasons()
                .get(0))
        .isEqualTo(STAGING + " is frozen until 2030-05-02T00:00:00Z: data-center move");

    hub.send("DELETE", "/api/v2/freeze-windows/" + first, OWNER_TOKEN, null);
    hub.send("DELETE", "/api/v2/freeze-windows/" + second, OWNER_TOKEN, null);
  }

  @Test
  @Order(7)
  void badRequestsNameTheirFieldsAndStoreNothing() {
    long before = windowCount();
    long audit = HubTestSupport.count("select count(*) from audit_log");

    Response empty = create(OWNER_TOKEN, Map.of());
    assertThat(empty.status()).isEqualTo(400);
    assertThat(fields(empty)).containsExactly("startsAt", "endsAt", "reason");

    Response backwards =
        create(
            OWNER_TOKEN,
            window(
                PRODUCTION, null, "2030-12-27T00:00:00Z", "2030-12-27T00:00:00Z", "zero length"));
    assertThat(backwards.status()).isEqualTo(400);
    assertThat(backwards.body().get("errors").get(0).get("field").asText()).isEqualTo("endsAt");
    assertThat(backwards.body().get("errors").get(0).get("reason").asText())
        .isEqualTo("must be after startsAt");

    Response unknown =
        create(
            OWNER_TOKEN,
            window("moon", "no-such-project", "2030-12-18T00:00:00Z", "2030-12-27T00:00:00Z", "x"));
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(fields(unknown)).containsExactly("environment", "project");
    assertThat(unknown.body().get("errors").get(0).get("reason").asText())
        .contains("no environment named 'moon'");

    Response badTime =
        create(OWNER_TOKEN, window(PRODUCTION, null, "next tuesday", "2030-12-27", "  "));
    assertThat(badTime.status()).isEqualTo(400);
    assertThat(fields(badTime)).containsExactly("startsAt", "endsAt", "reason");
    assertThat(badTime.body().get("errors").get(0).get("reason").asText()).contains("RFC 3339");

    Map<String, Object> extra =
        window(PRODUCTION, null, "2030-12-18T00:00:00Z", "2030-12-27T00:00:00Z", "x");
    extra.put("clusters", List.of("prod-eu"));
    Response unknownField = create(OWNER_TOKEN, extra);
    assertThat(unknownField.status()).isEqualTo(400);
    assertThat(fields(unknownField)).containsExactly("clusters");

    assertThat(hub.get("/api/v2/freeze-windows/not-a-uuid", OWNER_TOKEN).status()).isEqualTo(400);
    assertThat(
            hub.send("DELETE", "/api/v2/freeze-windows/" + UUID.randomUUID(), OWNER_TOKEN, null)
                .status())
        .isEqualTo(404);
    assertThat(windowCount()).isEqualTo(before);
    assertThat(HubTestSupport.count("select count(*) from audit_log")).isEqualTo(audit);
  }

  @Test
  @Order(8)
  void viewersAndMembersReadButCannotChangeWindows() {
    Response created =
        create(
            OWNER_TOKEN,
            window(STAGING, null, "2031-01-01T00:00:00Z", "2031-01-02T00:00:00Z", "new year"));
    String id = created.body().get("id").asText();
    long before = windowCount();

    for (String token : List.of(viewerToken, memberToken)) {
      Response post =
          create(
              token,
              window(PRODUCTION, null, "2030-12-18T00:00:00Z", "2030-12-27T00:00:00Z", "mine"));
      assertThat(post.status()).isEqualTo(403);
      assertThat(post.body().get("message").asText()).contains("org:write");
      assertThat(hub.send("DELETE", "/api/v2/freeze-windows/" + id, token, null).status())
          .isEqualTo(403);
      assertThat(hub.get("/api/v2/freeze-windows", token).status()).isEqualTo(200);
    }
    assertThat(windowCount()).isEqualTo(before);
    assertThat(hub.get("/api/v2/freeze-windows", null).status()).isEqualTo(401);
    assertThat(hub.send("DELETE", "/api/v2/freeze-windows/" + id, OWNER_TOKEN, null).status())
        .isEqualTo(204);
  }
}

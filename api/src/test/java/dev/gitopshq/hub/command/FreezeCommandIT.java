package dev.gitopshq.hub.command;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Freeze windows that hold commands, on a real hub, PostgreSQL, the real OPA and the command
 * workflow: a command of a type a window holds, on a cluster of its environment, ends {@code
 * frozen} before any decision; break-glass passes the freeze and meets the approval policy; a type
 * the window does not name, a cluster of another environment and another organization's window do
 * not hold it; a window's command types are checked field by field. No agent is connected: a
 * command that gets through waits in {@code executing} or {@code pending_approval}, which is what
 * these tests look at.
 */
class FreezeCommandIT {
  static final String SUFFIX = UUID.randomUUID().toString().substring(0, 6);
  static final String PRODUCTION = "fzc-production-" + SUFFIX;
  static final String STAGING = "fzc-staging-" + SUFFIX;
  static final String JUSTIFICATION = "checkout is down and scaling is the fix";

  static HubTestSupport hub;
  static String production;
  static String staging;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.sharedWithOpa();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                hub.post(
                            "/api/v2/policies/approval/evaluate",
                            OWNER_TOKEN,
                            Map.of("input", Map.of("command", Map.of("type", "sync"))))
                        .status()
                    == 200);
    for (String env : List.of(PRODUCTION, STAGING)) {
      Response e = hub.post("/api/v2/environments", OWNER_TOKEN, Map.of("name", env));
      assertThat(e.status()).as(e.raw()).isEqualTo(201);
    }
    production = cluster("fzc-prod-" + SUFFIX, PRODUCTION);
    staging = cluster("fzc-stg-" + SUFFIX, STAGING);

    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Response w =
        window(
            OWNER_TOKEN,
            Map.of(
                "environment",
                PRODUCTION,
                "startsAt",
                now.minus(1, ChronoUnit.HOURS).toString(),
                "endsAt",
                now.plus(2, ChronoUnit.HOURS).toString(),
                "reason",
                "year-end freeze",
                "commandTypes",
                List.of("scale")));
    assertThat(w.status()).as(w.raw()).isEqualTo(201);
    assertThat(w.body().get("commandTypes").toString()).isEqualTo("[\"scale\"]");

    // Another organization freezes every command everywhere: nothing of this organization's.
    JsonNode other = hub.createOrg("fzc-other-" + SUFFIX);
    Response otherWindow =
        window(
            other.get("ownerToken").asText(),
            Map.of(
                "startsAt",
                now.minus(1, ChronoUnit.HOURS).toString(),
                "endsAt",
                now.plus(2, ChronoUnit.HOURS).toString(),
                "reason",
                "their own freeze",
                "commandTypes",
                List.of("all")));
    assertThat(otherWindow.status()).as(otherWindow.raw()).isEqualTo(201);
  }

  /**
   * A cluster in {@code environment} whose agent reports scale and restart, break-glass allowed.
   */
  static String cluster(String name, String environment) {
    Response c =
        hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name, "environment", environment));
    assertThat(c.status()).as(c.raw()).isEqualTo(201);
    String id = c.body().get("cluster").get("id").asText();
    HubTestSupport.exec(
        "update clusters set capabilities = ? where id = ?",
        new String[] {"kubernetes.scale", "kubernetes.restart"},
        UUID.fromString(id));
    Response bound =
        hub.send(
            "PUT",
            "/api/v2/clusters/" + id + "/approval-policy",
            OWNER_TOKEN,
            Map.of(
                "requireApproval",
                List.of("restart"),
                "autoApprove",
                List.of("scale"),
                "breakGlass",
                Map.of("allowed", true, "roles", List.of("owner"))));
    assertThat(bound.status()).as(bound.raw()).isEqualTo(200);
    return id;
  }

  static Response window(String token, Map<String, Object> body) {
    return hub.post("/api/v2/freeze-windows", token, body);
  }

  static String command(String clusterId, String type, String justification) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", type);
    body.put("target", Map.of("namespace", "demo", "kind", "Deployment", "name", "web"));
    if (type.equals("scale")) {
      body.put("params", Map.of("replicas", 4));
    }
    body.put("reason", "freeze test");
    if (justification != null) {
      body.put("breakGlass", Map.of("justification", justification));
    }
    Response r = hub.post("/api/v2/clusters/" + clusterId + "/commands", OWNER_TOKEN, body);
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    return r.body().get("id").asText();
  }

  /** The command once its status is no longer pending. */
  static JsonNode settled(String id) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              last[0] = hub.get("/api/v2/commands/" + id, OWNER_TOKEN).body();
              return !"pending".equals(last[0].path("status").asText("pending"));
            });
    return last[0];
  }

  static List<String> timeline(JsonNode command) {
    List<String> out = new ArrayList<>();
    command.get("timeline").forEach(e -> out.add(e.get("detail").asText()));
    return out;
  }

  @Test
  void aCommandTheWindowHoldsEndsFrozenNamingTheWindow() {
    JsonNode c = settled(command(production, "scale", null));

    assertThat(c.get("status").asText()).isEqualTo("frozen");
    assertThat(c.get("statusDetail").asText())
        .contains("cluster fzc-prod-" + SUFFIX + " (environment " + PRODUCTION + ")")
        .contains("is frozen for scale commands until")
        .contains("year-end freeze")
        .contains("blocked until the freeze ends");
    assertThat(c.has("decision")).as("no approval decision for a frozen command").isFalse();
  }

  @Test
  void breakGlassPassesTheFreezeOnTheRecordAndThenTheApprovalPolicysRules() {
    JsonNode c = settled(command(production, "scale", JUSTIFICATION));

    assertThat(c.get("status").asText()).isIn("executing", "completed", "failed");
    assertThat(c.get("decision").get("outcome").asText()).isEqualTo("break_glass");
    assertThat(timeline(c))
        .anySatisfy(
            d ->
                assertThat(d)
                    .startsWith("frozen, passing under break-glass: ")
                    .contains("justification: " + JUSTIFICATION));
  }

  @Test
  void aTypeTheWindowDoesNotNameIsNotHeld() {
    JsonNode c = settled(command(production, "restart", null));

    // Restart needs approval on this cluster: it waits for approvers instead of being frozen,
    // though the other organization's window holds every command everywhere.
    assertThat(c.get("status").asText()).isEqualTo("pending_approval");
    assertThat(timeline(c)).noneMatch(d -> d.contains("frozen"));
  }

  @Test
  void aClusterOfAnotherEnvironmentIsNotHeld() {
    JsonNode c = settled(command(staging, "scale", null));

    assertThat(c.get("status").asText()).isIn("executing", "completed", "failed");
    assertThat(c.get("decision").get("outcome").asText()).isEqualTo("auto_approve");
  }

  @Test
  void commandTypesAreCheckedFieldByField() {
    Map<String, Object> base = new LinkedHashMap<>();
    base.put("startsAt", "2030-01-01T00:00:00Z");
    base.put("endsAt", "2030-01-02T00:00:00Z");
    base.put("reason", "bad types");

    Map<String, Object> unknown = new LinkedHashMap<>(base);
    unknown.put("commandTypes", List.of("scale", "reboot"));
    Response r = window(OWNER_TOKEN, unknown);
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.body().get("errors").get(0).get("field").asText()).isEqualTo("commandTypes[1]");
    assertThat(r.body().get("errors").get(0).get("reason").asText())
        .contains("'all' or a command type")
        .contains("scale");

    Map<String, Object> allAndMore = new LinkedHashMap<>(base);
    allAndMore.put("commandTypes", List.of("all", "scale"));
    assertThat(window(OWNER_TOKEN, allAndMore).body().get("errors").get(0).get("field").asText())
        .isEqualTo("commandTypes");

    Response project = hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "fzc-" + SUFFIX));
    assertThat(project.status()).as(project.raw()).isEqualTo(201);
    Map<String, Object> forProject = new LinkedHashMap<>(base);
    forProject.put("project", "fzc-" + SUFFIX);
    forProject.put("commandTypes", List.of("restart"));
    Response p = window(OWNER_TOKEN, forProject);
    assertThat(p.status()).isEqualTo(400);
    assertThat(p.body().get("errors").get(0).get("field").asText()).isEqualTo("commandTypes");
    assertThat(p.body().get("errors").get(0).get("reason").asText())
        .contains("a window for one project holds no commands");
  }
}

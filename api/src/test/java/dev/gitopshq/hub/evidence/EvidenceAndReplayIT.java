package dev.gitopshq.hub.evidence;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.evidence.Ed25519;
import dev.gitopshq.evidence.EvidenceVerifier;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.audit.ReplayRequests;
import dev.gitopshq.hub.audit.ReplayService;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.testkube.TestKube;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.PublicKey;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Auditor tools on a real command (REST -> workflow -> real OPA -> an approval vote -> the real
 * agent -> the mock Kubernetes API): its signed evidence verifies offline with the key the hub
 * publishes, its history exports and replays deterministically, a different workflow code diverges,
 * and another organization sees none of it.
 */
class EvidenceAndReplayIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static OpaTestServer opa;
  static HubTestSupport hub;
  static TestKube kube;
  static Agent agent;
  static String clusterId;
  static String requester;
  static String approver;
  static String commandId;
  static java.nio.file.Path identity;
  static String registrationToken;

  /** When this class began: its own workflows start after it (other classes share the org). */
  static java.time.Instant began;

  @BeforeAll
  static void start() throws Exception {
    began = java.time.Instant.now();
    opa = OpaTestServer.startNew();
    kube = TestKube.start().seedDemo();
    hub =
        new HubTestSupport(true)
            .property("opa.url", opa.url())
            .property("opa.token", opa.token())
            .start();
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
    requester = token("member");
    approver = token("admin");
    JsonNode created =
        hub.post(
                "/api/v2/clusters",
                OWNER_TOKEN,
                Map.of("name", "ev-prod", "environment", "production"))
            .body();
    clusterId = created.get("cluster").get("id").asText();
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    identity = Files.createTempDirectory("agent").resolve("identity.json");
    registrationToken = created.get("registrationToken").asText();
    env.put(AgentConfig.AGENT_TOKEN_PATH, identity.toString());
    env.put(AgentConfig.REGISTRATION_TOKEN, registrationToken);
    env.put(AgentConfig.CLUSTER_NAME, "ev-prod");
    env.put(AgentConfig.CAPABILITIES, "observe,kubernetes.scale");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    agent = Agent.start(AgentConfig.fromEnv(env), kube::client);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();

    Response bound =
        hub.send(
            "PUT",
            "/api/v2/clusters/" + clusterId + "/approval-policy",
            OWNER_TOKEN,
            Map.of("requireApproval", List.of("scale"), "requiredApprovers", 1));
    assertThat(bound.status()).as(bound.raw()).isEqualTo(200);
    Response r =
        hub.post(
            "/api/v2/clusters/" + clusterId + "/commands",
            requester,
            Map.of(
                "type",
                "scale",
                "target",
                Map.of("namespace", "demo", "kind", "Deployment", "name", "web"),
                "params",
                Map.of("replicas", 4),
                "reason",
                "load test"));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    commandId = r.body().get("id").asText();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "pending_approval".equals(command().get("status").asText()));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                hub.get("/api/v2/approvals", approver)
                    .body()
                    .get("items")
                    .findValuesAsText("id")
                    .contains(commandId));
    Response vote =
        hub.post(
            "/api/v2/approvals/" + commandId + "/approve",
            approver,
            Map.of("comment", "ok for the load test"));
    assertThat(vote.status()).as(vote.raw()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "completed".equals(command().get("status").asText()));
  }

  @AfterAll
  static void stop() {
    agent.close();
    hub.close();
    kube.close();
    opa.close();
  }

  static JsonNode command() {
    return hub.get("/api/v2/commands/" + commandId, OWNER_TOKEN).body();
  }

  static String token(String role) {
    Response m =
        hub.post(
            "/api/v2/members",
            OWNER_TOKEN,
            Map.of(
                "email",
                role + "-" + UUID.randomUUID().toString().substring(0, 6) + "@example.com",
                "name",
                role,
                "role",
                role));
    // Members reach clusters and projects through a grant; roles are under test here.
    hub.grantEverything(m.body().get("id").asText());
    return hub.post(
            "/api/v2/members/" + m.body().get("id").asText() + "/tokens",
            OWNER_TOKEN,
            Map.of("name", "t"))
        .body()
        .get("token")
        .asText();
  }

  static PublicKey publishedKey(String keyId) {
    JsonNode keys = hub.get("/api/v2/evidence/keys", requester).body().get("keys");
    for (JsonNode k : keys) {
      if (k.get("id").asText().equals(keyId)) {
        assertThat(k.get("algorithm").asText()).isEqualTo("Ed25519");
        assertThat(k.get("publicKeyPem").asText()).startsWith("-----BEGIN PUBLIC KEY-----");
        return Ed25519.publicKey(k.get("publicKey").asText());
      }
    }
    throw new AssertionError("key " + keyId + " is not published: " + keys);
  }

  static Response evidence() {
    return hub.get("/api/v2/commands/" + commandId + "/evidence", OWNER_TOKEN);
  }

  @Test
  void theCommandsEvidenceNamesItsDecisionVoteAndResultAndVerifiesOffline() throws Exception {
    Response r = evidence();
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    JsonNode ev = r.body().get("evidence");
    assertThat(ev.get("kind").asText()).isEqualTo("command");
    assertThat(ev.get("request").get("type").asText()).isEqualTo("scale");
    assertThat(ev.get("request").get("requestedBy").get("name").asText()).startsWith("member-");
    JsonNode decision = ev.get("decisions").get(0);
    assertThat(decision.get("policy").asText()).isEqualTo("approval");
    assertThat(decision.get("outcome").asText()).isEqualTo("require_approval");
    assertThat(decision.get("policySha256").asText()).matches("[0-9a-f]{64}");
    assertThat(decision.get("inputSha256").asText()).matches("[0-9a-f]{64}");
    JsonNode vote = ev.get("approvals").get(0).get("votes").get(0);
    assertThat(vote.get("comment").asText()).isEqualTo("ok for the load test");
    assertThat(vote.get("approve").asBoolean()).isTrue();
    assertThat(ev.get("result").get("status").asText()).isEqualTo("completed");
    assertThat(ev.get("result").get("output").asText()).contains("scaled");
    assertThat(ev.get("workflows").get(0).get("workflowId").asText()).isEqualTo(commandId);
    assertThat(ev.get("audit").get("entries").findValuesAsText("action"))
        .contains("command.requested", "command.decision", "approval.approved_by");

    PublicKey key = publishedKey(r.body().get("signature").get("keyId").asText());
    byte[] history =
        hub.get("/api/v2/workflows/" + commandId + "/history", OWNER_TOKEN)
            .raw()
            .getBytes(StandardCharsets.UTF_8);
    EvidenceVerifier.Result ok = EvidenceVerifier.verify(r.raw().getBytes(), key, history);
    assertThat(ok.checks()).as(ok.checks().toString()).allMatch(EvidenceVerifier.Check::ok);
    assertThat(ok.valid()).isTrue();

    // Someone edits the agent's result in the file: the signature says so.
    ObjectNode tampered = (ObjectNode) JSON.readTree(r.raw());
    ((ObjectNode) tampered.get("evidence").get("result")).put("output", "nothing happened");
    EvidenceVerifier.Result bad =
        EvidenceVerifier.verify(JSON.writeValueAsBytes(tampered), key, null);
    assertThat(bad.valid()).isFalse();
    assertThat(bad.firstFailure().name()).isEqualTo("signature");
    assertThat(bad.firstFailure().reason()).contains("changed after signing");
  }

  @Test
  void theHistoryExportsAsTemporalJsonForTheOwnOrganizationOnly() throws Exception {
    Response own = hub.get("/api/v2/workflows/" + commandId + "/history", OWNER_TOKEN);
    assertThat(own.status()).isEqualTo(200);
    JsonNode events = own.body().get("events");
    assertThat(events.size()).isGreaterThan(5);
    assertThat(events.get(0).get("eventType").asText())
        .isEqualTo("EVENT_TYPE_WORKFLOW_EXECUTION_STARTED");
    // Temporal's own replayer reads the export.
    io.temporal.testing.WorkflowReplayer.replayWorkflowExecution(
        own.raw(),
        dev.gitopshq.workflows.command.CommandWorkflowImpl.class,
        dev.gitopshq.workflows.approval.ApprovalWorkflowImpl.class);

    String other = otherOrgOwner();
    assertThat(hub.get("/api/v2/workflows/" + commandId + "/history", other).status())
        .isEqualTo(404);
    assertThat(hub.get("/api/v2/commands/" + commandId + "/evidence", other).status())
        .isEqualTo(404);
    assertThat(hub.get("/api/v2/workflows/registration-nope/history", OWNER_TOKEN).status())
        .isEqualTo(404);
    // Another organization's replay names the workflow as not found and never replays it.
    JsonNode report =
        hub.post("/api/v2/audit/replays", other, Map.of("workflowIds", List.of(commandId))).body();
    assertThat(report.get("results").get(0).get("outcome").asText()).isEqualTo("not_found");
  }

  @Test
  void exportedHistoriesHoldNoToken() throws Exception {
    // The agent's identity file holds its plaintext token; the registration token came back once.
    String agentToken = Files.readString(identity);
    List<String> exported = new ArrayList<>();
    for (String type : List.of("RegistrationWorkflow", "CommandWorkflow", "ApprovalWorkflow")) {
      // From this class's start: the whole suite's last hour holds more than the 50 a request
      // may replay (a 400).
      Response replayed =
          hub.post(
              "/api/v2/audit/replays",
              OWNER_TOKEN,
              Map.of(
                  "type",
                  type,
                  "from",
                  began.toString(),
                  "to",
                  java.time.Instant.now().plusSeconds(60).toString()));
      assertThat(replayed.status()).as(replayed.raw()).isEqualTo(200);
      JsonNode report = replayed.body();
      for (JsonNode result : report.get("results")) {
        // Other test classes of this JVM registered clusters in the same organization on
        // Temporal servers of their own, now gone: only this hub's workflows have a history here.
        if (!"deterministic".equals(result.path("outcome").asText())) {
          continue;
        }
        String id = result.get("workflowId").asText();
        Response h = hub.get("/api/v2/workflows/" + id + "/history", OWNER_TOKEN);
        assertThat(h.status()).as(id).isEqualTo(200);
        StringBuilder decoded = new StringBuilder(h.raw());
        for (String data : h.body().findValuesAsText("data")) {
          decoded.append(
              new String(java.util.Base64.getDecoder().decode(data), StandardCharsets.UTF_8));
        }
        exported.add(decoded.toString());
      }
    }
    assertThat(exported).hasSizeGreaterThanOrEqualTo(3);
    assertThat(agentToken).contains("ghqa_");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("ghqa_[A-Za-z0-9_]+").matcher(agentToken);
    assertThat(m.find()).isTrue();
    String token = m.group();
    for (String history : exported) {
      assertThat(history).doesNotContain(token).doesNotContain(registrationToken);
    }
  }

  @Test
  void evidenceAndHistoryNeedAuditRead() {
    assertThat(evidenceAs(requester).status()).isEqualTo(403);
    assertThat(hub.get("/api/v2/workflows/" + commandId + "/history", requester).status())
        .isEqualTo(403);
    assertThat(
            hub.post("/api/v2/audit/replays", requester, Map.of("workflowIds", List.of(commandId)))
                .status())
        .isEqualTo(403);
  }

  static Response evidenceAs(String token) {
    return hub.get("/api/v2/commands/" + commandId + "/evidence", token);
  }

  @Test
  void replayingTheRealCommandIsDeterministicAndIsAudited() {
    Response r =
        hub.post("/api/v2/audit/replays", OWNER_TOKEN, Map.of("workflowIds", List.of(commandId)));
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    JsonNode result = r.body().get("results").get(0);
    assertThat(result.get("outcome").asText()).as(r.raw()).isEqualTo("deterministic");
    assertThat(result.get("workflowType").asText()).isEqualTo("CommandWorkflow");
    assertThat(r.body().get("deterministic").asInt()).isEqualTo(1);

    Response byType =
        hub.post(
            "/api/v2/audit/replays",
            OWNER_TOKEN,
            Map.of(
                "type",
                "CommandWorkflow",
                "from",
                began.toString(),
                "to",
                java.time.Instant.now().plusSeconds(60).toString()));
    assertThat(byType.status()).as(byType.raw()).isEqualTo(200);
    assertThat(byType.body().get("results").findValuesAsText("workflowId")).contains(commandId);

    JsonNode entry =
        hub.get("/api/v2/audit?action=audit.replay", OWNER_TOKEN).body().get("items").get(0);
    assertThat(entry.get("actor").get("name").asText()).isEqualTo("admin@gitopshq.local");
    assertThat(entry.get("details").get("workflows").findValuesAsText("outcome"))
        .contains("deterministic");
  }

  @Test
  void replayingAgainstDifferentCodeReportsTheDivergenceWithTemporalsReason() {
    HubPrincipal owner = ownerPrincipal();
    ReplayRequests.Report report =
        hub.bean(ReplayService.class)
            .replay(
                owner,
                new ReplayRequests.Replay(List.of(commandId), null, null, null),
                List.of(
                    DivergentCommandWorkflow.class,
                    dev.gitopshq.workflows.approval.ApprovalWorkflowImpl.class));
    ReplayRequests.Outcome o = report.results().getFirst();
    assertThat(o.outcome()).as(o.toString()).isEqualTo("diverged");
    assertThat(o.reason()).isNotBlank();
    assertThat(o.eventId()).as(o.reason()).isNotNull().isPositive();
    assertThat(report.diverged()).isEqualTo(1);
  }

  static HubPrincipal ownerPrincipal() {
    UUID org =
        UUID.fromString(hub.get("/api/v2/me", OWNER_TOKEN).body().path("org").path("id").asText());
    return new HubPrincipal(
        org,
        null,
        null,
        UUID.randomUUID(),
        "auditor-test",
        Role.OWNER,
        EnumSet.allOf(Permission.class),
        true);
  }

  @Test
  void replayRequestsAreBounded() {
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 51; i++) {
      many.add(UUID.randomUUID().toString());
    }
    Response tooMany = hub.post("/api/v2/audit/replays", OWNER_TOKEN, Map.of("workflowIds", many));
    assertThat(tooMany.status()).isEqualTo(400);
    assertThat(tooMany.raw()).contains("workflowIds").contains("50");

    Response badType =
        hub.post(
            "/api/v2/audit/replays",
            OWNER_TOKEN,
            Map.of("type", "Nope", "from", "2026-01-01T00:00:00Z", "to", "2026-01-02T00:00:00Z"));
    assertThat(badType.status()).isEqualTo(400);
    assertThat(badType.raw()).contains("type");

    Response noTo =
        hub.post(
            "/api/v2/audit/replays",
            OWNER_TOKEN,
            Map.of("type", "CommandWorkflow", "from", "2026-01-01T00:00:00Z"));
    assertThat(noTo.status()).isEqualTo(400);
    assertThat(noTo.raw()).contains("\"to\"");

    Response huge =
        hub.post(
            "/api/v2/audit/replays",
            OWNER_TOKEN,
            Map.of("workflowIds", List.of("x".repeat(5 * 1024 * 1024))));
    assertThat(huge.status()).isEqualTo(413);
  }

  @Test
  void thePrivateKeyIsStoredOnlySealed() throws Exception {
    evidence();
    byte[] pkcs8 = hub.bean(EvidenceKeys.class).current().privateKey().getEncoded();
    // The last 32 bytes of an Ed25519 PKCS#8 key are the private seed.
    String seed = HexFormat.of().formatHex(pkcs8, pkcs8.length - 32, pkcs8.length);
    StringBuilder dump = new StringBuilder();
    try (var c = HubTestSupport.db();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select * from evidence_keys")) {
      while (rs.next()) {
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          Object v = rs.getObject(i);
          dump.append(v instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(v));
          dump.append('|');
        }
      }
    }
    assertThat(dump).isNotEmpty();
    assertThat(dump.toString()).doesNotContain(seed);
    assertThat(dump.toString()).doesNotContain(HexFormat.of().formatHex(pkcs8));
  }

  static String otherOrgOwner() {
    String slug = "ev-other-" + UUID.randomUUID().toString().substring(0, 8);
    Response r =
        hub.post(
            "/api/v2/orgs",
            OWNER_TOKEN,
            Map.of(
                "slug",
                slug,
                "name",
                "Org " + slug,
                "owner",
                Map.of("email", "owner@" + slug + ".example.com", "name", "Owner")));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().get("ownerToken").asText();
  }
}

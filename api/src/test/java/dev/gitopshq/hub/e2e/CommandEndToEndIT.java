package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static dev.gitopshq.hub.HubTestSupport.metric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Commands through the whole path: REST -> command workflow -> the real OPA -> PostgreSQL ->
 * approvals inbox -> the real agent -> the Fabric8 mock Kubernetes API, checking that the
 * Deployment and the Application really changed, exactly once.
 */
@Tag("e2e")
class CommandEndToEndIT {
  static final String WEBHOOK_SECRET = "the-receivers-shared-secret";
  static final List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
  static HttpServer webhook;
  static OpaTestServer opa;
  static HubTestSupport hub;
  static TestKube kube;
  static Agent agent;
  static String clusterId;
  static String requester;
  static String approverA;
  static String approverB;
  static String approverAId;

  @BeforeAll
  static void start() throws Exception {
    opa = OpaTestServer.startNew();
    kube = TestKube.start().seedDemo();
    webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    webhook.createContext(
        "/hook",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          Mac mac;
          try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(
                new SecretKeySpec(WEBHOOK_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
          } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
          }
          boolean valid =
              ("sha256=" + HexFormat.of().formatHex(mac.doFinal(body)))
                  .equals(exchange.getRequestHeaders().getFirst("X-GitOpsHQ-Signature"));
          events.add(
              (valid ? "signed " : "UNSIGNED ")
                  + exchange.getRequestHeaders().getFirst("X-GitOpsHQ-Event")
                  + " "
                  + new String(body, StandardCharsets.UTF_8));
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    webhook.start();
    hub =
        new HubTestSupport(true)
            .property("opa.url", opa.url())
            .property("opa.token", opa.token())
            .property(
                "gitopshq.notify.webhook-url",
                "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hook")
            .property("gitopshq.notify.webhook-secret", WEBHOOK_SECRET)
            .property("gitopshq.metrics.refresh", "300ms")
            .start();
    awaitPolicyPublished();

    requester = token("member");
    String[] a = tokenAndId("admin");
    approverA = a[0];
    approverAId = a[1];
    approverB = token("owner");

    JsonNode created =
        hub.post(
                "/api/v2/clusters",
                OWNER_TOKEN,
                Map.of(
                    "name",
                    "cmd-prod",
                    "environment",
                    "production",
                    "labels",
                    Map.of("tier", "production")))
            .body();
    clusterId = created.get("cluster").get("id").asText();
    identity = Files.createTempDirectory("agent").resolve("identity.json");
    agent =
        Agent.start(
            AgentConfig.fromEnv(agentEnv(created.get("registrationToken").asText())), kube::client);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
  }

  static Path identity;

  static Map<String, String> agentEnv(String registrationToken) {
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(AgentConfig.AGENT_TOKEN_PATH, identity.toString());
    if (registrationToken != null) {
      env.put(AgentConfig.REGISTRATION_TOKEN, registrationToken);
    }
    env.put(AgentConfig.CLUSTER_NAME, "cmd-prod");
    env.put(
        AgentConfig.CAPABILITIES,
        "observe,argocd.read,argocd.write,kubernetes.restart,kubernetes.scale");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "2");
    return env;
  }

  @AfterAll
  static void stop() {
    webhook.stop(0);
    agent.close();
    hub.close();
    kube.close();
    opa.close();
  }

  static void awaitPolicyPublished() {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              Response r =
                  hub.post(
                      "/api/v2/policies/approval/evaluate",
                      OWNER_TOKEN,
                      Map.of("input", Map.of("command", Map.of("type", "sync"))));
              return r.status() == 200;
            });
  }

  static String token(String role) {
    return tokenAndId(role)[0];
  }

  static String[] tokenAndId(String role) {
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
    String id = m.body().get("id").asText();
    // Members reach the cluster through a grant; roles, not grants, are under test here.
    hub.grantEverything(id);
    return new String[] {
      hub.post("/api/v2/members/" + id + "/tokens", OWNER_TOKEN, Map.of("name", "t"))
          .body()
          .get("token")
          .asText(),
      id
    };
  }

  static void bind(Map<String, Object> policy) {
    Response r =
        hub.send("PUT", "/api/v2/clusters/" + clusterId + "/approval-policy", OWNER_TOKEN, policy);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
  }

  static String command(String token, Map<String, Object> body) {
    Response r = hub.post("/api/v2/clusters/" + clusterId + "/commands", token, body);
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    return r.body().get("id").asText();
  }

  static JsonNode get(String id) {
    return hub.get("/api/v2/commands/" + id, OWNER_TOKEN).body();
  }

  static JsonNode awaitStatus(String id, String status) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> status.equals(get(id).get("status").asText()));
    return get(id);
  }

  /** One field of each item (findValues would also find nested fields of the same name). */
  static List<String> top(JsonNode items, String field) {
    List<String> out = new java.util.ArrayList<>();
    items.forEach(i -> out.add(i.get(field).asText()));
    return out;
  }

  static Deployment web() {
    return kube.client().apps().deployments().inNamespace("demo").withName("web").get();
  }

  static Map<String, Object> scale(int replicas) {
    return Map.of(
        "type",
        "scale",
        "target",
        Map.of("namespace", "demo", "kind", "Deployment", "name", "web"),
        "params",
        Map.of("replicas", replicas),
        "reason",
        "load test");
  }

  /** Binds a policy that auto-approves syncs and requests a sync of demo-app; its id. */
  static String autoApprovedSync() {
    bind(
        Map.of(
            "autoApprove",
            List.of("sync"),
            "requireApproval",
            List.of("scale", "rollback", "restart"),
            "requiredApprovers",
            2));
    String id =
        command(
            requester,
            Map.of(
                "type",
                "sync",
                "target",
                Map.of("namespace", "argocd", "kind", "Application", "name", "demo-app")));
    return id;
  }

  @Test
  void anAutoApprovedSyncSetsTheApplicationOperation() {
    String id = autoApprovedSync();

    JsonNode done = awaitStatus(id, "completed");
    assertThat(done.get("decision").get("outcome").asText()).isEqualTo("auto_approve");
    assertThat(done.get("decision").get("version").asInt()).isPositive();
    assertThat(done.get("output").asText()).contains("sync").contains("requested");
    assertThat(done.get("timeline").findValuesAsText("status"))
        .containsSubsequence("pending", "executing", "completed");
    GenericKubernetesResource app =
        kube.client()
            .genericKubernetesResources(TestKube.ARGOCD_API_VERSION, "Application")
            .inNamespace("argocd")
            .withName("demo-app")
            .get();
    assertThat(app.getAdditionalProperties()).containsKey("operation");
    assertThat(app.getMetadata().getAnnotations()).containsEntry("gitopshq.dev/last-command", id);
  }

  /** What an operator's Prometheus scrapes after a command ran: the fleet, the command, OPA. */
  @Test
  void anOperatorScrapesTheAgentLinkTheCommandsAndTheDecisions() {
    String id = autoApprovedSync();
    awaitStatus(id, "completed");

    assertThat(hub.get("/actuator/prometheus", null).status()).isEqualTo(401);
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () -> {
              String scrape = hub.get("/actuator/prometheus", OWNER_TOKEN).raw();
              assertThat(
                      metric(
                          scrape,
                          "gitopshq_commands_total",
                          "status=\"completed\"",
                          "type=\"sync\""))
                  .isGreaterThanOrEqualTo(1);
              assertThat(
                      metric(
                          scrape,
                          "gitopshq_command_duration_seconds_count",
                          "status=\"completed\"",
                          "type=\"sync\""))
                  .isGreaterThanOrEqualTo(1);
              assertThat(
                      metric(
                          scrape,
                          "gitopshq_opa_decision_seconds_count",
                          "policy=\"approval\"",
                          "result=\"ok\""))
                  .isGreaterThanOrEqualTo(1);
              assertThat(metric(scrape, "gitopshq_agent_streams")).isGreaterThanOrEqualTo(1);
              assertThat(metric(scrape, "gitopshq_agent_heartbeats_total")).isPositive();
              assertThat(metric(scrape, "gitopshq_clusters", "status=\"connected\""))
                  .isGreaterThanOrEqualTo(1);
              assertThat(metric(scrape, "gitopshq_approvals_pending", "kind=\"command\""))
                  .isGreaterThanOrEqualTo(0);
              // grpc-java's server calls (Micrometer's binder) and Temporal's SDK metrics.
              assertThat(
                      metric(
                          scrape,
                          "grpc_server_requests_received_messages_total",
                          "method=\"Connect\""))
                  .isPositive();
              assertThat(scrape).contains("temporal_workflow_completed_total");
            });
  }

  @Test
  void aScaleNeedingTwoApprovalsWaitsForItsAgentAndRunsOnceAcrossAHubRestart() throws Exception {
    bind(
        Map.of(
            "requireApproval",
            List.of("scale"),
            "autoApprove",
            List.of("sync"),
            "requiredApprovers",
            2));
    int before = web().getSpec().getReplicas();
    int target = before + 3;
    String id = command(requester, scale(target));
    awaitStatus(id, "pending_approval");

    // The inbox shows it to approvers, not to the requester; self-approval is refused.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                hub.get("/api/v2/approvals", approverA)
                    .body()
                    .get("items")
                    .findValuesAsText("id")
                    .contains(id));
    assertThat(hub.get("/api/v2/approvals", requester).body().get("items").findValuesAsText("id"))
        .doesNotContain(id);
    Response self =
        hub.post("/api/v2/approvals/" + id + "/approve", requester, Map.of("comment", "mine"));
    assertThat(self.status()).isEqualTo(403);

    assertThat(
            hub.post("/api/v2/approvals/" + id + "/approve", approverA, Map.of("comment", "ok"))
                .status())
        .isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> get(id).get("approvals").get(0).get("votes").size() == 1);
    assertThat(
            hub.post("/api/v2/approvals/" + id + "/approve", approverA, Map.of("comment", "again"))
                .status())
        .isEqualTo(409);
    assertThat(get(id).get("status").asText()).isEqualTo("pending_approval");
    assertThat(web().getSpec().getReplicas()).isEqualTo(before);

    // The agent goes away; the second approval arrives: the command is due but waits, parked.
    agent.close();
    assertThat(
            hub.post("/api/v2/approvals/" + id + "/approve", approverB, Map.of("comment", "lgtm"))
                .status())
        .isEqualTo(202);
    awaitStatus(id, "executing");
    Thread.sleep(1000);
    assertThat(web().getSpec().getReplicas()).isEqualTo(before);

    // The hub restarts while the command waits; then the agent comes back and runs it, once.
    hub.stop();
    hub.start();
    agent = Agent.start(AgentConfig.fromEnv(agentEnv(null)), kube::client);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    assertThat(agent.registerCalls()).isZero();

    JsonNode done = awaitStatus(id, "completed");
    assertThat(web().getSpec().getReplicas()).isEqualTo(target);
    assertThat(done.get("output").asText())
        .isEqualTo("deployment.apps/web scaled from " + before + " to " + target);
    assertThat(done.get("approvals").get(0).get("votes").findValuesAsText("comment"))
        .containsExactly("ok", "lgtm");
    assertThat(agent.commandsExecuted()).isEqualTo(1);
    String version = web().getMetadata().getResourceVersion();
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> version.equals(web().getMetadata().getResourceVersion()));
  }

  @Test
  void aServiceAccountsRequestIsNotApprovedByTheMemberBehindIt() {
    bind(Map.of("requireApproval", List.of("scale"), "requiredApprovers", 1));
    // approverA (an admin) creates the CI account; approverB (an owner) is someone else.
    String sa =
        hub.post(
                "/api/v2/service-accounts",
                approverA,
                Map.of(
                    "name",
                    "ci-" + UUID.randomUUID().toString().substring(0, 6),
                    "scopes",
                    List.of("clusters:read", "commands:create", "commands:read")))
            .body()
            .get("id")
            .asText();
    String ci =
        hub.post("/api/v2/service-accounts/" + sa + "/tokens", approverA, Map.of("name", "ci"))
            .body()
            .get("token")
            .asText();
    int before = web().getSpec().getReplicas();
    String id = command(ci, scale(before + 1));
    awaitStatus(id, "pending_approval");
    await().atMost(Duration.ofSeconds(10)).until(() -> get(id).get("approvals").size() == 1);

    // The creator neither sees it in the inbox nor can approve it.
    assertThat(hub.get("/api/v2/approvals", approverA).body().get("items").findValuesAsText("id"))
        .doesNotContain(id);
    Response mine =
        hub.post("/api/v2/approvals/" + id + "/approve", approverA, Map.of("comment", "my bot"));
    assertThat(mine.status()).isEqualTo(403);
    assertThat(mine.body().get("message").asText()).contains("service account you created");
    assertThat(get(id).get("status").asText()).isEqualTo("pending_approval");

    // Handing the account to another owner does not free the creator, and binds the new owner.
    assertThat(
            hub.patch("/api/v2/service-accounts/" + sa, OWNER_TOKEN, Map.of("ownerId", approverAId))
                .status())
        .isEqualTo(200);
    assertThat(
            hub.post("/api/v2/approvals/" + id + "/approve", approverB, Map.of("comment", "ok"))
                .status())
        .isEqualTo(202);
    awaitStatus(id, "completed");
    assertThat(web().getSpec().getReplicas()).isEqualTo(before + 1);
  }

  /** A service account for the chain test, made by {@code creator}; answers its id and a token. */
  static String[] accountOf(String creator, List<String> scopes) {
    Response made =
        hub.post(
            "/api/v2/service-accounts",
            creator,
            Map.of(
                "name", "chain-" + UUID.randomUUID().toString().substring(0, 6), "scopes", scopes));
    assertThat(made.status()).isEqualTo(201);
    String id = made.body().get("id").asText();
    Response token =
        hub.post("/api/v2/service-accounts/" + id + "/tokens", creator, Map.of("name", "ci"));
    assertThat(token.status()).isEqualTo(201);
    return new String[] {id, token.body().get("token").asText()};
  }

  @Test
  void nobodyUpAChainOfServiceAccountsApprovesWhatTheLastOneRequests() {
    bind(Map.of("requireApproval", List.of("scale"), "requiredApprovers", 1));
    List<String> makers =
        List.of(
            "service-accounts:read",
            "service-accounts:write",
            "clusters:read",
            "commands:create",
            "commands:read");
    // approverA (a human) makes sa1, sa1 makes sa2, sa2 makes sa3; approverB is someone else.
    String[] sa1 = accountOf(approverA, makers);
    String[] sa2 = accountOf(sa1[1], makers);
    String[] sa3 = accountOf(sa2[1], List.of("clusters:read", "commands:create", "commands:read"));
    JsonNode third = hub.get("/api/v2/service-accounts/" + sa3[0], OWNER_TOKEN).body();
    assertThat(third.get("createdByServiceAccount").asText()).isEqualTo(sa2[0]);
    assertThat(third.get("ownerId").asText()).isEqualTo(approverAId);

    int before = web().getSpec().getReplicas();
    String id = command(sa3[1], scale(before + 1));
    awaitStatus(id, "pending_approval");
    await().atMost(Duration.ofSeconds(10)).until(() -> get(id).get("approvals").size() == 1);

    // The human at the root of the chain neither sees it in the inbox nor can approve it.
    assertThat(hub.get("/api/v2/approvals", approverA).body().get("items").findValuesAsText("id"))
        .doesNotContain(id);
    Response root =
        hub.post("/api/v2/approvals/" + id + "/approve", approverA, Map.of("comment", "my bots"));
    assertThat(root.status()).isEqualTo(403);
    assertThat(root.body().get("message").asText()).contains("one made by such an account");
    // Nor can the accounts on the way.
    for (String[] sa : List.of(sa1, sa2)) {
      assertThat(
              hub.post("/api/v2/approvals/" + id + "/approve", sa[1], Map.of("comment", "ok"))
                  .status())
          .isEqualTo(403);
    }
    assertThat(get(id).get("status").asText()).isEqualTo("pending_approval");

    // Another human may.
    assertThat(hub.get("/api/v2/approvals", approverB).body().get("items").findValuesAsText("id"))
        .contains(id);
    assertThat(
            hub.post("/api/v2/approvals/" + id + "/approve", approverB, Map.of("comment", "ok"))
                .status())
        .isEqualTo(202);
    awaitStatus(id, "completed");
    assertThat(web().getSpec().getReplicas()).isEqualTo(before + 1);
  }

  @Test
  void aRejectionStopsTheCommandWithTheComment() {
    bind(Map.of("requireApproval", List.of("scale"), "requiredApprovers", 1));
    int before = web().getSpec().getReplicas();
    String id = command(requester, scale(before + 10));
    awaitStatus(id, "pending_approval");
    await().atMost(Duration.ofSeconds(10)).until(() -> get(id).get("approvals").size() == 1);
    assertThat(hub.post("/api/v2/approvals/" + id + "/reject", approverA, Map.of()).status())
        .isEqualTo(400);
    hub.post(
        "/api/v2/approvals/" + id + "/reject", approverA, Map.of("comment", "not during the sale"));
    JsonNode done = awaitStatus(id, "rejected");
    assertThat(done.get("statusDetail").asText()).contains("not during the sale");
    assertThat(web().getSpec().getReplicas()).isEqualTo(before);
  }

  @Test
  void theRequesterCanCancelWhileWaiting() {
    bind(Map.of("requireApproval", List.of("restart"), "requiredApprovers", 1));
    String id =
        command(
            requester,
            Map.of(
                "type",
                "restart",
                "target",
                Map.of("namespace", "demo", "kind", "Deployment", "name", "web")));
    awaitStatus(id, "pending_approval");
    await().atMost(Duration.ofSeconds(10)).until(() -> get(id).get("approvals").size() == 1);
    assertThat(hub.post("/api/v2/commands/" + id + "/cancel", approverA, null).status())
        .isEqualTo(403);
    assertThat(hub.post("/api/v2/commands/" + id + "/cancel", requester, null).status())
        .isEqualTo(202);
    awaitStatus(id, "cancelled");
    assertThat(hub.post("/api/v2/commands/" + id + "/cancel", requester, null).status())
        .isEqualTo(409);
  }

  @Test
  void breakGlassRunsAtOnceIsFlaggedAndLeavesAReviewInTheInbox() {
    bind(
        Map.of(
            "requireApproval",
            List.of("restart"),
            "requiredApprovers",
            2,
            "breakGlass",
            Map.of("allowed", true, "roles", List.of("admin", "owner"))));
    String id =
        command(
            approverA,
            Map.of(
                "type",
                "restart",
                "target",
                Map.of("namespace", "demo", "kind", "Deployment", "name", "web"),
                "breakGlass",
                Map.of("justification", "checkout is down, the on-call lead is unreachable")));
    JsonNode done = awaitStatus(id, "completed");
    assertThat(done.get("breakGlass").asBoolean()).isTrue();
    assertThat(done.get("decision").get("outcome").asText()).isEqualTo("break_glass");
    assertThat(web().getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("gitopshq.dev/restart", id);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.startsWith("signed break_glass.used")
                                && e.contains("checkout is down")));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                hub.get("/api/v2/approvals", approverB)
                    .body()
                    .get("items")
                    .findValuesAsText("kind")
                    .contains("break_glass_review"));
    String review = id + "-review";
    assertThat(hub.get("/api/v2/approvals", approverA).body().get("items").findValuesAsText("id"))
        .doesNotContain(review);
    assertThat(
            hub.post(
                    "/api/v2/approvals/" + review + "/approve",
                    approverB,
                    Map.of("comment", "justified"))
                .status())
        .isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                !hub.get("/api/v2/approvals", approverB)
                    .body()
                    .get("items")
                    .findValuesAsText("id")
                    .contains(review));

    // A member may not break glass under this policy: rejected with the reason.
    String denied =
        command(
            requester,
            Map.of(
                "type",
                "restart",
                "target",
                Map.of("namespace", "demo", "kind", "Deployment", "name", "web"),
                "breakGlass",
                Map.of("justification", "I really want to restart this right now")));
    JsonNode rejected = awaitStatus(denied, "rejected");
    assertThat(rejected.get("statusDetail").asText()).containsIgnoringCase("break-glass");
  }

  @Test
  void aFailedCommandSendsASignedNotification() {
    bind(Map.of("autoApprove", List.of("scale")));
    String id =
        command(
            requester,
            Map.of(
                "type",
                "scale",
                "target",
                Map.of("namespace", "demo", "kind", "Deployment", "name", "does-not-exist"),
                "params",
                Map.of("replicas", 1)));
    JsonNode failed = awaitStatus(id, "failed");
    assertThat(failed.get("statusDetail").asText())
        .contains("does-not-exist")
        .contains("not found");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                events.stream()
                    .anyMatch(e -> e.startsWith("signed command.failed") && e.contains(id)));
    assertThat(events).noneMatch(e -> e.startsWith("UNSIGNED"));
  }

  @Test
  void invalidCommandsAreRefusedNamingTheField() {
    Response negative =
        hub.post("/api/v2/clusters/" + clusterId + "/commands", requester, scale(-1));
    assertThat(negative.status()).isEqualTo(400);
    assertThat(negative.body().get("errors").get(0).get("field").asText())
        .isEqualTo("params.replicas");
    Response wrongKind =
        hub.post(
            "/api/v2/clusters/" + clusterId + "/commands",
            requester,
            Map.of(
                "type",
                "sync",
                "target",
                Map.of("namespace", "demo", "kind", "Deployment", "name", "web")));
    assertThat(wrongKind.status()).isEqualTo(400);
    assertThat(wrongKind.body().get("errors").get(0).get("field").asText())
        .isEqualTo("target.kind");
    Response shortJustification =
        hub.post(
            "/api/v2/clusters/" + clusterId + "/commands",
            requester,
            Map.of(
                "type",
                "restart",
                "target",
                Map.of("namespace", "demo", "kind", "Deployment", "name", "web"),
                "breakGlass",
                Map.of("justification", "urgent")));
    assertThat(shortJustification.status()).isEqualTo(400);
    assertThat(shortJustification.body().get("errors").get(0).get("field").asText())
        .isEqualTo("breakGlass.justification");
  }

  @Test
  void aRepeatedRequestWithTheSameIdempotencyKeyIsOneCommand() {
    bind(Map.of("autoApprove", List.of("sync"), "requireApproval", List.of("scale")));
    Map<String, Object> body =
        Map.of(
            "type",
            "sync",
            "target",
            Map.of("namespace", "argocd", "kind", "Application", "name", "demo-app"));
    String key = UUID.randomUUID().toString();
    Response first =
        hub.send(
            "POST",
            "/api/v2/clusters/" + clusterId + "/commands",
            requester,
            body,
            Map.of("Idempotency-Key", key));
    Response second =
        hub.send(
            "POST",
            "/api/v2/clusters/" + clusterId + "/commands",
            requester,
            body,
            Map.of("Idempotency-Key", key));
    assertThat(first.status()).isEqualTo(202);
    assertThat(second.status()).isEqualTo(200);
    assertThat(second.body().get("id").asText()).isEqualTo(first.body().get("id").asText());
    // The same key for another request is refused, not answered with the first command.
    Response other =
        hub.send(
            "POST",
            "/api/v2/clusters/" + clusterId + "/commands",
            requester,
            Map.of(
                "type",
                "sync",
                "target",
                Map.of("namespace", "argocd", "kind", "Application", "name", "other-app")),
            Map.of("Idempotency-Key", key));
    assertThat(other.status()).isEqualTo(422);
    assertThat(other.body().get("error").asText()).isEqualTo("idempotency_key_reused");
    awaitStatus(first.body().get("id").asText(), "completed");
  }

  @Test
  void whileOpaIsDownNothingRunsAndTheCommandSaysWhy() {
    bind(Map.of("autoApprove", List.of("scale"), "requiredApprovers", 1));
    int before = web().getSpec().getReplicas();
    opa.stop();
    try {
      String id = command(requester, scale(before + 1));
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> get(id).get("statusDetail").asText().contains("policy decision"));
      assertThat(get(id).get("status").asText()).isEqualTo("pending");
      assertThat(web().getSpec().getReplicas()).isEqualTo(before);

      opa.start();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> "completed".equals(get(id).get("status").asText()));
      assertThat(web().getSpec().getReplicas()).isEqualTo(before + 1);
    } finally {
      if (!opa.isRunning()) {
        opa.start();
      }
    }
  }

  @Test
  void commandHistoryFiltersAndPages() {
    bind(Map.of("autoApprove", List.of("sync")));
    awaitStatus(
        command(
            requester,
            Map.of(
                "type",
                "sync",
                "target",
                Map.of("namespace", "argocd", "kind", "Application", "name", "demo-app"))),
        "completed");
    Response all = hub.get("/api/v2/clusters/" + clusterId + "/commands?limit=1", OWNER_TOKEN);
    assertThat(all.status()).isEqualTo(200);
    assertThat(all.body().get("items")).hasSize(1);
    assertThat(
            hub.get("/api/v2/clusters/" + clusterId + "/commands?type=reboot", OWNER_TOKEN)
                .status())
        .isEqualTo(400);
    JsonNode syncs =
        hub.get("/api/v2/clusters/" + clusterId + "/commands?type=sync", OWNER_TOKEN)
            .body()
            .get("items");
    assertThat(top(syncs, "type")).isNotEmpty().containsOnly("sync");
    JsonNode completed =
        hub.get("/api/v2/clusters/" + clusterId + "/commands?status=completed&limit=1", OWNER_TOKEN)
            .body();
    assertThat(top(completed.get("items"), "status")).containsOnly("completed");
    if (completed.hasNonNull("nextCursor")) {
      JsonNode page2 =
          hub.get(
                  "/api/v2/clusters/"
                      + clusterId
                      + "/commands?status=completed&limit=1&cursor="
                      + completed.get("nextCursor").asText(),
                  OWNER_TOKEN)
              .body();
      assertThat(page2.get("items").findValuesAsText("id"))
          .doesNotContain(completed.get("items").get(0).get("id").asText());
    }
  }
}

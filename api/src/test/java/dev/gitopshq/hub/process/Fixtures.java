package dev.gitopshq.hub.process;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport.Response;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Steps the hub-process tests share: a published policy, a cluster with its agent, commands. */
final class Fixtures {
  private Fixtures() {}

  /** OPA answers once the hub has published the policies into it. */
  static void awaitPolicyPublished(HubProcess hub) {
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
  }

  /** Creates a cluster through {@code hub}; its id and registration token. */
  static String[] createCluster(HubProcess hub, String name) {
    Response created =
        hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name, "environment", "staging"));
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    return new String[] {
      created.body().get("cluster").get("id").asText(),
      created.body().get("registrationToken").asText()
    };
  }

  /** The real agent in this JVM, dialling {@code hubAddress}, with scale rights; connected. */
  static Agent startAgent(
      String hubAddress, String clusterName, String registrationToken, KubernetesClient kube)
      throws IOException, InterruptedException {
    return startAgent(
        hubAddress,
        clusterName,
        registrationToken,
        kube,
        Files.createTempDirectory("agent").resolve("identity.json"));
  }

  /** {@link #startAgent}, keeping its identity (with its agent token) in {@code identityFile}. */
  static Agent startAgent(
      String hubAddress,
      String clusterName,
      String registrationToken,
      KubernetesClient kube,
      java.nio.file.Path identityFile)
      throws IOException, InterruptedException {
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hubAddress);
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(AgentConfig.AGENT_TOKEN_PATH, identityFile.toString());
    env.put(AgentConfig.REGISTRATION_TOKEN, registrationToken);
    env.put(AgentConfig.CLUSTER_NAME, clusterName);
    env.put(AgentConfig.CAPABILITIES, "observe,kubernetes.scale,token.rotate");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "1");
    Agent agent = Agent.start(AgentConfig.fromEnv(env), () -> kube);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    return agent;
  }

  /** A cluster whose agent is connected and whose approval policy auto-approves scale. */
  record AutoScaled(String id, Agent agent) {}

  /**
   * Once {@code hub} has published its policies: a cluster created through it, its agent dialling
   * {@code agentDials} (the hub, or a proxy in front of it) and closed with {@code stack}, and a
   * policy that auto-approves scale.
   */
  static AutoScaled autoScaledCluster(
      ProcessStack stack, HubProcess hub, String agentDials, String name)
      throws IOException, InterruptedException {
    awaitPolicyPublished(hub);
    String[] cluster = createCluster(hub, name);
    Agent agent = stack.add(startAgent(agentDials, name, cluster[1], stack.agentKube));
    bindPolicy(hub, cluster[0], Map.of("autoApprove", List.of("scale")));
    return new AutoScaled(cluster[0], agent);
  }

  /**
   * The first scale of a stack's demo/web from {@code before} replicas completed once: a whole
   * timeline, the agent's output, one write to the cluster, one run by the agent.
   */
  static void assertFirstScaleCompletedOnce(
      ProcessStack stack, HubProcess hub, Agent agent, String id, int before, Duration within) {
    JsonNode done = awaitStatus(hub, id, "completed", within);
    assertWholeTimeline(done, "completed");
    assertThat(done.get("output").asText())
        .isEqualTo("deployment.apps/web scaled from " + before + " to " + (before + 1));
    assertThat(stack.writes.sent()).isEqualTo(1);
    assertThat(agent.commandsExecuted()).isEqualTo(1);
  }

  static void bindPolicy(HubProcess hub, String clusterId, Map<String, Object> policy) {
    Response r =
        hub.send("PUT", "/api/v2/clusters/" + clusterId + "/approval-policy", OWNER_TOKEN, policy);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
  }

  /** Requests a scale of demo/web; the command's id. */
  static String scale(HubProcess hub, String token, String clusterId, int replicas) {
    Response r =
        hub.post("/api/v2/clusters/" + clusterId + "/commands", token, scaleBody(replicas));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    return r.body().get("id").asText();
  }

  /** A scale of demo/web to {@code replicas}, as a request body. */
  static Map<String, Object> scaleBody(int replicas) {
    return Map.of(
        "type",
        "scale",
        "target",
        Map.of("namespace", "demo", "kind", "Deployment", "name", "web"),
        "params",
        Map.of("replicas", replicas),
        "reason",
        "fault injection");
  }

  static JsonNode command(HubProcess hub, String id) {
    return hub.get("/api/v2/commands/" + id, OWNER_TOKEN).body();
  }

  static JsonNode awaitStatus(HubProcess hub, String id, String status, Duration within) {
    await()
        .atMost(within)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> status.equals(command(hub, id).get("status").asText()));
    return command(hub, id);
  }

  /**
   * A command's timeline is whole: numbered 1..n without a gap or a repeat, from the request to one
   * hand-over to the agent and one outcome, which is the last event. Returns its statuses.
   */
  static List<String> assertWholeTimeline(JsonNode command, String outcome) {
    JsonNode events = command.get("timeline");
    for (int i = 0; i < events.size(); i++) {
      assertThat(events.get(i).get("seq").asInt()).as("timeline seq").isEqualTo(i + 1);
    }
    List<String> statuses = events.findValuesAsText("status");
    assertThat(statuses).as("timeline").first().isEqualTo("pending");
    assertThat(statuses).as("timeline").last().isEqualTo(outcome);
    assertThat(statuses.stream().filter("executing"::equals).count()).as("executing").isEqualTo(1);
    assertThat(statuses.stream().filter(outcome::equals).count()).as(outcome).isEqualTo(1);
    return statuses;
  }

  /** Audit entries of {@code action} on {@code target}, as the audit API lists them. */
  static int audited(HubProcess hub, String action, String target) {
    return hub.get("/api/v2/audit?action=" + action + "&target=" + target, OWNER_TOKEN)
        .body()
        .get("items")
        .size();
  }

  /** A new member with {@code role} and an API token; {token, memberId, tokenId}. */
  static String[] member(HubProcess hub, String role) {
    Response m =
        hub.post(
            "/api/v2/members",
            OWNER_TOKEN,
            Map.of(
                "email",
                role + "-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com",
                "name",
                role,
                "role",
                role));
    assertThat(m.status()).as(m.raw()).isEqualTo(201);
    String id = m.body().get("id").asText();
    // Members reach clusters and projects through grants; roles, not grants, are under test here.
    Response team =
        hub.post("/api/v2/teams", OWNER_TOKEN, Map.of("name", "all-" + id.substring(0, 8)));
    assertThat(team.status()).as(team.raw()).isEqualTo(201);
    String teamId = team.body().get("id").asText();
    for (Map<String, Object> grant :
        List.<Map<String, Object>>of(
            Map.of("teamId", teamId, "role", "member", "scope", "projects"),
            Map.of(
                "teamId", teamId, "role", "member", "scope", "clusters", "selector", Map.of()))) {
      Response g = hub.post("/api/v2/grants", OWNER_TOKEN, grant);
      assertThat(g.status()).as(g.raw()).isEqualTo(201);
    }
    Response in =
        hub.post("/api/v2/teams/" + teamId + "/members", OWNER_TOKEN, Map.of("memberId", id));
    assertThat(in.status()).as(in.raw()).isEqualTo(200);
    Response t = hub.post("/api/v2/members/" + id + "/tokens", OWNER_TOKEN, Map.of("name", "t"));
    assertThat(t.status()).as(t.raw()).isEqualTo(201);
    return new String[] {t.body().get("token").asText(), id, t.body().get("id").asText()};
  }
}

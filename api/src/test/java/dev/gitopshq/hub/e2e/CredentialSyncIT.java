package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.credential.CredentialSyncJobs;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Credential sync end to end on a real kube-apiserver: an organization's credential, assigned to a
 * cluster and namespaces, becomes a server-side applied Secret in each target namespace with the
 * right type and data; a change re-syncs it; unassigning removes it; a namespace outside the
 * agent's credentialSync.targets fails with the reason; an agent without credential.sync is
 * refused; the organization's credentials policy can deny a namespace, which then stays without the
 * Secret, failed with the policy's reason, and audited. The credential's canary value is never in
 * the database dump, the hub's or agent's logs, the audit log, the sync workflow's history or the
 * live Secret's metadata.
 */
@Tag("e2e")
class CredentialSyncIT {
  static RealKube kube;
  static KubernetesClient admin;
  static HubTestSupport hub;
  static final String S = UUID.randomUUID().toString().substring(0, 6);
  static final String NS_A = "cs-a-" + S;
  static final String NS_B = "cs-b-" + S;
  static final String NS_OUT = "cs-out-" + S;
  static final String NS_DENY = "cs-deny-" + S;
  static final String CANARY = "canary-" + UUID.randomUUID().toString().replace("-", "");
  static final String CANARY2 = "canary2-" + UUID.randomUUID().toString().replace("-", "");
  static final ConcurrentLinkedQueue<String> LOGS = new ConcurrentLinkedQueue<>();
  static AppenderBase<ILoggingEvent> capture;

  @BeforeAll
  static void start() {
    kube = RealKube.shared();
    admin = kube.adminClient();
    for (String ns : List.of(NS_A, NS_B, NS_OUT, NS_DENY)) {
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
    // Every log event of the hub and the agent (same JVM), at every level, rendered in full.
    capture =
        new AppenderBase<>() {
          @Override
          protected void append(ILoggingEvent e) {
            LOGS.add(
                e.getLoggerName()
                    + " "
                    + e.getFormattedMessage()
                    + (e.getThrowableProxy() == null
                        ? ""
                        : ThrowableProxyUtil.asString(e.getThrowableProxy())));
          }
        };
    // Attached after the hub started: Spring Boot resets the logging configuration on start.
    // Every credential sync asks the organization's credentials policy: the hub with a real OPA.
    hub = HubTestSupport.sharedWithOpa();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    capture.setContext(root.getLoggerContext());
    capture.start();
    root.addAppender(capture);
  }

  @AfterAll
  static void stop() {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(capture);
    if (admin != null) {
      for (String ns : List.of(NS_A, NS_B, NS_OUT, NS_DENY)) {
        admin.namespaces().withName(ns).delete();
      }
      admin.close();
    }
  }

  static JsonNode ok(Response r, int status) {
    assertThat(r.status()).as(r.raw()).isEqualTo(status);
    return r.body();
  }

  static String dockerConfig(String password) {
    return "{\"auths\":{\"registry.example\":{\"username\":\"ci\",\"password\":\""
        + password
        + "\"}}}";
  }

  static Agent agent(String cluster, String capabilities, KubernetesClient client)
      throws Exception {
    return agent(env(cluster, capabilities), client);
  }

  static Agent agent(Map<String, String> env, KubernetesClient client) throws Exception {
    Agent agent = Agent.start(AgentConfig.fromEnv(env), () -> client);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    return agent;
  }

  /** Registers the cluster; the agent's environment (its identity file survives restarts). */
  static Map<String, String> env(String cluster, String capabilities) throws Exception {
    JsonNode created = ok(hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", cluster)), 201);
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(
        AgentConfig.AGENT_TOKEN_PATH, Files.createTempDirectory("cs").resolve("a.json").toString());
    env.put(AgentConfig.CLUSTER_NAME, cluster);
    env.put(AgentConfig.CAPABILITIES, capabilities);
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.CREDENTIAL_SYNC_MODE, "mirrored");
    env.put(AgentConfig.CREDENTIAL_SYNC_TARGETS, NS_A + "," + NS_B);
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());
    return env;
  }

  static String clusterId(String name) {
    for (JsonNode c : ok(hub.get("/api/v2/clusters", OWNER_TOKEN), 200).get("items")) {
      if (c.get("name").asText().equals(name)) {
        return c.get("id").asText();
      }
    }
    throw new AssertionError("no cluster " + name);
  }

  static Map<String, JsonNode> status(String clusterId) {
    Map<String, JsonNode> out = new HashMap<>();
    ok(hub.get("/api/v2/clusters/" + clusterId + "/credentials", OWNER_TOKEN), 200)
        .get("items")
        .forEach(i -> out.put(i.get("name").asText() + "/" + i.get("namespace").asText(), i));
    return out;
  }

  static String data(Secret s, String key) {
    return new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.UTF_8);
  }

  static Response assign(String credentialId, String clusterId, List<String> namespaces) {
    return hub.send(
        "PUT",
        "/api/v2/credentials/" + credentialId + "/assignments",
        OWNER_TOKEN,
        Map.of(
            "assignments",
            namespaces.isEmpty()
                ? List.of()
                : List.of(Map.of("clusterId", clusterId, "namespaces", namespaces))));
  }

  @Test
  void aCredentialIsSyncedChangedFailedOutsideTargetsAndRemovedWithoutLeakingItsValue()
      throws Exception {
    String cluster = "creds-" + S;
    try (KubernetesClient agentClient = kube.adminClient();
        Agent agent = agent(cluster, "observe,credential.sync", agentClient)) {
      String clusterId = clusterId(cluster);
      String name = "registry-" + S;
      JsonNode created =
          ok(
              hub.post(
                  "/api/v2/credentials",
                  OWNER_TOKEN,
                  Map.of(
                      "name",
                      name,
                      "type",
                      "dockerconfigjson",
                      "data",
                      Map.of(".dockerconfigjson", dockerConfig(CANARY)))),
              201);
      String id = created.get("id").asText();
      assertThat(created.toString()).doesNotContain(CANARY);
      assertThat(created.get("keys").toString()).contains(".dockerconfigjson");

      // Assigned to two namespaces: the same Secret appears in both, synced.
      ok(assign(id, clusterId, List.of(NS_A, NS_B)), 200);
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                for (String ns : List.of(NS_A, NS_B)) {
                  Secret s = admin.secrets().inNamespace(ns).withName(name).get();
                  assertThat(s.getType()).isEqualTo("kubernetes.io/dockerconfigjson");
                  assertThat(data(s, ".dockerconfigjson")).isEqualTo(dockerConfig(CANARY));
                  assertThat(s.getMetadata().getLabels())
                      .containsEntry("app.kubernetes.io/managed-by", "gitopshq")
                      .containsEntry("gitopshq.io/credential-id", id);
                  JsonNode st = status(clusterId).get(name + "/" + ns);
                  assertThat(st.get("status").asText()).isEqualTo("synced");
                  assertThat(st.get("lastSyncedAt").isNull()).isFalse();
                  assertThat(st.get("type").asText()).isEqualTo("dockerconfigjson");
                }
              });
      Secret live = admin.secrets().inNamespace(NS_A).withName(name).get();
      assertThat(live.getMetadata().getAnnotations())
          .doesNotContainKey("kubectl.kubernetes.io/last-applied-configuration");
      // Written by server-side apply under the agent's field manager.
      assertThat(live.getMetadata().getManagedFields())
          .anyMatch(
              f ->
                  f.getManager().equals("gitopshq-credential-sync")
                      && f.getOperation().equals("Apply"));
      String metadata =
          String.valueOf(live.getMetadata().getAnnotations())
              + live.getMetadata().getLabels()
              + live.getMetadata().getManagedFields();
      assertThat(metadata).doesNotContain(CANARY);

      // A change re-syncs it everywhere.
      ok(
          hub.send(
              "PUT",
              "/api/v2/credentials/" + id,
              OWNER_TOKEN,
              Map.of("data", Map.of(".dockerconfigjson", dockerConfig(CANARY2)))),
          200);
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                for (String ns : List.of(NS_A, NS_B)) {
                  Secret s = admin.secrets().inNamespace(ns).withName(name).get();
                  assertThat(data(s, ".dockerconfigjson")).isEqualTo(dockerConfig(CANARY2));
                  JsonNode st = status(clusterId).get(name + "/" + ns);
                  assertThat(st.get("status").asText()).isEqualTo("synced");
                  assertThat(st.get("syncedVersion").asLong()).isEqualTo(2);
                }
              });

      // A sync whose answer was lost stays pending; the sweep sends it again.
      String before = status(clusterId).get(name + "/" + NS_A).get("lastSyncedAt").asText();
      HubTestSupport.exec(
          "update credential_assignments set status = 'pending', updated_at = now() - interval"
              + " '5 minutes' where credential_id = ? and namespace = ?",
          UUID.fromString(id),
          NS_A);
      assertThat(status(clusterId).get(name + "/" + NS_A).get("status").asText())
          .isEqualTo("pending");
      hub.bean(dev.gitopshq.hub.credential.CredentialDelivery.class).sweep();
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                JsonNode st = status(clusterId).get(name + "/" + NS_A);
                assertThat(st.get("status").asText()).isEqualTo("synced");
                assertThat(st.get("lastSyncedAt").asText()).isNotEqualTo(before);
              });

      // A namespace outside credentialSync.targets fails with the reason; the others stay.
      ok(assign(id, clusterId, List.of(NS_A, NS_B, NS_OUT)), 200);
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                JsonNode st = status(clusterId).get(name + "/" + NS_OUT);
                assertThat(st.get("status").asText()).isEqualTo("failed");
                assertThat(st.get("error").asText()).contains("credentialSync.targets");
              });
      assertThat(admin.secrets().inNamespace(NS_OUT).withName(name).get()).isNull();

      // A sealed value copied into another credential's row does not open there (the organization
      // and credential id are its associated data): that credential fails, nothing is written.
      String copyName = "copied-" + S;
      String copy =
          ok(
                  hub.post(
                      "/api/v2/credentials",
                      OWNER_TOKEN,
                      Map.of("name", copyName, "type", "opaque", "data", Map.of("k", "v"))),
                  201)
              .get("id")
              .asText();
      HubTestSupport.exec(
          "update credentials set ciphertext = (select ciphertext from credentials where id = ?)"
              + " where id = ?",
          UUID.fromString(id),
          UUID.fromString(copy));
      ok(assign(copy, clusterId, List.of(NS_A)), 200);
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                JsonNode st = status(clusterId).get(copyName + "/" + NS_A);
                assertThat(st.get("status").asText()).isEqualTo("failed");
                assertThat(st.get("error").asText()).contains("cannot decrypt");
              });
      assertThat(admin.secrets().inNamespace(NS_A).withName(copyName).get()).isNull();
      ok(hub.send("DELETE", "/api/v2/credentials/" + copy, OWNER_TOKEN, null), 204);

      // Viewers see the status, not the credentials.
      String viewer = memberToken("viewer");
      assertThat(hub.get("/api/v2/clusters/" + clusterId + "/credentials", viewer).status())
          .isEqualTo(200);
      Response denied = hub.get("/api/v2/credentials", viewer);
      assertThat(denied.status()).isEqualTo(403);
      assertThat(denied.raw()).contains("credentials:write");

      // Another organization sees none of it: 404 for the credential, and it cannot target the
      // cluster with a credential of its own.
      String other = "cs-org-" + S;
      String tokenB =
          ok(
                  hub.post(
                      "/api/v2/orgs",
                      OWNER_TOKEN,
                      Map.of(
                          "slug",
                          other,
                          "name",
                          "Other",
                          "owner",
                          Map.of("email", "owner@" + other + ".example.com", "name", "Owner"))),
                  201)
              .get("ownerToken")
              .asText();
      assertThat(hub.get("/api/v2/credentials/" + id, tokenB).status()).isEqualTo(404);
      assertThat(ok(hub.get("/api/v2/credentials", tokenB), 200).get("items")).isEmpty();
      assertThat(
              hub.send(
                      "PUT",
                      "/api/v2/credentials/" + id,
                      tokenB,
                      Map.of("data", Map.of(".dockerconfigjson", dockerConfig("x"))))
                  .status())
          .isEqualTo(404);
      assertThat(hub.get("/api/v2/clusters/" + clusterId + "/credentials", tokenB).status())
          .isEqualTo(404);
      String theirs =
          ok(
                  hub.post(
                      "/api/v2/credentials",
                      tokenB,
                      Map.of("name", name, "type", "opaque", "data", Map.of("k", "v"))),
                  201)
              .get("id")
              .asText();
      Response foreign =
          hub.send(
              "PUT",
              "/api/v2/credentials/" + theirs + "/assignments",
              tokenB,
              Map.of(
                  "assignments",
                  List.of(Map.of("clusterId", clusterId, "namespaces", List.of(NS_A)))));
      assertThat(foreign.status()).isEqualTo(400);
      assertThat(foreign.raw()).contains("assignments[0].clusterId");

      // Unassigning one namespace removes its Secret; unassigning everywhere removes the rest.
      ok(assign(id, clusterId, List.of(NS_A)), 200);
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(admin.secrets().inNamespace(NS_B).withName(name).get()).isNull());
      assertThat(admin.secrets().inNamespace(NS_A).withName(name).get()).isNotNull();
      assertThat(status(clusterId)).containsOnlyKeys(name + "/" + NS_A);
      ok(assign(id, clusterId, List.of()), 200);
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(admin.secrets().inNamespace(NS_A).withName(name).get()).isNull());
      assertThat(status(clusterId)).isEmpty();

      // A Secret GitOpsHQ does not manage is never touched by a prune.
      admin
          .secrets()
          .inNamespace(NS_A)
          .resource(
              new io.fabric8.kubernetes.api.model.SecretBuilder()
                  .withNewMetadata()
                  .withName("not-ours")
                  .addToLabels("app.kubernetes.io/managed-by", "gitopshq")
                  .endMetadata()
                  .addToStringData("k", "v")
                  .build())
          .create();
      ok(assign(id, clusterId, List.of(NS_A)), 200);
      ok(hub.send("DELETE", "/api/v2/credentials/" + id, OWNER_TOKEN, null), 204);
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(admin.secrets().inNamespace(NS_A).withName(name).get()).isNull());
      assertThat(admin.secrets().inNamespace(NS_A).withName("not-ours").get()).isNotNull();
    }

    // The canary is nowhere: database dump, audit details, logs.
    String dump = pgDump();
    assertThat(dump).contains("credential.assigned").contains("registry-" + S);
    assertThat(dump).doesNotContain(CANARY).doesNotContain(CANARY2);
    // bytea columns are dumped as hex: the plaintext would show as its hex there.
    for (String c : List.of(CANARY, CANARY2)) {
      assertThat(dump)
          .doesNotContain(java.util.HexFormat.of().formatHex(c.getBytes(StandardCharsets.UTF_8)))
          .doesNotContain(Base64.getEncoder().encodeToString(c.getBytes(StandardCharsets.UTF_8)));
    }
    String audit = ok(hub.get("/api/v2/audit?limit=200", OWNER_TOKEN), 200).toString();
    assertThat(audit)
        .contains("credential.created", "credential.updated", "credential.assigned")
        .contains("credential.removed", "credential.deleted");
    assertThat(audit).doesNotContain(CANARY).doesNotContain(CANARY2);
    List<String> logs = new ArrayList<>(LOGS);
    assertThat(logs).anyMatch(l -> l.contains("synced as Secret"));
    assertThat(logs).noneMatch(l -> l.contains(CANARY) || l.contains(CANARY2));

    // No workflow carries a credential: every history of this hub's Temporal (the clusters'
    // registrations, at least) is free of the canary.
    var temporal = hub.temporal();
    var stub = temporal.getWorkflowClient().getWorkflowServiceStubs().blockingStub();
    List<io.temporal.api.common.v1.WorkflowExecution> runs = new ArrayList<>();
    stub.listOpenWorkflowExecutions(
            io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest.newBuilder()
                .setNamespace(temporal.getNamespace())
                .setMaximumPageSize(1000)
                .build())
        .getExecutionsList()
        .forEach(e -> runs.add(e.getExecution()));
    stub.listClosedWorkflowExecutions(
            io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest.newBuilder()
                .setNamespace(temporal.getNamespace())
                .setMaximumPageSize(1000)
                .build())
        .getExecutionsList()
        .forEach(e -> runs.add(e.getExecution()));
    assertThat(runs).anyMatch(r -> r.getWorkflowId().startsWith("credential-sync-"));
    for (var run : runs) {
      // The raw history bytes: payloads are stored as their serialized JSON inside them.
      String history =
          new String(
              temporal
                  .getWorkflowClient()
                  .fetchHistory(run.getWorkflowId(), run.getRunId())
                  .getHistory()
                  .toByteArray(),
              StandardCharsets.ISO_8859_1);
      assertThat(history).doesNotContain(CANARY).doesNotContain(CANARY2);
    }
  }

  @Test
  void aPolicyThatDeniesANamespaceLeavesItUnsyncedWithTheReasonAndAnAuditEntry() throws Exception {
    String cluster = "creds-deny-" + S;
    Map<String, String> env = env(cluster, "observe,credential.sync");
    // The agent would write to both namespaces: only the policy keeps the Secret out of one.
    env.put(AgentConfig.CREDENTIAL_SYNC_TARGETS, NS_A + "," + NS_DENY);
    String shipped =
        ok(hub.get("/api/v2/policies/credentials", OWNER_TOKEN), 200).get("rego").asText();
    String denying =
        shipped.replace("denied_namespaces := []", "denied_namespaces := [\"" + NS_DENY + "\"]");
    assertThat(denying).isNotEqualTo(shipped);
    ok(hub.send("PUT", "/api/v2/policies/credentials", OWNER_TOKEN, Map.of("rego", denying)), 200);
    String name = "governed-" + S;
    try (KubernetesClient agentClient = kube.adminClient();
        Agent agent = agent(env, agentClient)) {
      String clusterId = clusterId(cluster);
      String id =
          ok(
                  hub.post(
                      "/api/v2/credentials",
                      OWNER_TOKEN,
                      Map.of("name", name, "type", "opaque", "data", Map.of("token", CANARY))),
                  201)
              .get("id")
              .asText();
      ok(assign(id, clusterId, List.of(NS_A, NS_DENY)), 200);
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                assertThat(admin.secrets().inNamespace(NS_A).withName(name).get()).isNotNull();
                JsonNode allowed = status(clusterId).get(name + "/" + NS_A);
                assertThat(allowed.get("status").asText()).isEqualTo("synced");
                assertThat(allowed.get("deniedByPolicy").asBoolean()).isFalse();
                JsonNode denied = status(clusterId).get(name + "/" + NS_DENY);
                assertThat(denied.get("status").asText()).isEqualTo("failed");
                assertThat(denied.get("deniedByPolicy").asBoolean()).isTrue();
                assertThat(denied.get("error").asText())
                    .startsWith("denied by policy: ")
                    .contains("namespace " + NS_DENY)
                    .contains("denies namespaces matching");
              });
      assertThat(admin.secrets().inNamespace(NS_DENY).withName(name).get()).isNull();
      // A credential whose every target the policy denies is never sent: no job names it.
      String deniedOnly = "denied-only-" + S;
      String deniedId =
          ok(
                  hub.post(
                      "/api/v2/credentials",
                      OWNER_TOKEN,
                      Map.of(
                          "name", deniedOnly, "type", "opaque", "data", Map.of("token", CANARY))),
                  201)
              .get("id")
              .asText();
      ok(assign(deniedId, clusterId, List.of(NS_DENY)), 200);
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                JsonNode st = status(clusterId).get(deniedOnly + "/" + NS_DENY);
                assertThat(st.get("status").asText()).isEqualTo("failed");
                assertThat(st.get("deniedByPolicy").asBoolean()).isTrue();
              });
      assertThat(
              HubTestSupport.count(
                  "select count(*) from agent_jobs where kind = 'credential_sync'"
                      + " and (ref = ? or result->>'credentialId' = ?)",
                  ref(deniedId),
                  deniedId))
          .isZero();
      // The allowed one did go as a job.
      assertThat(
              HubTestSupport.count(
                  "select count(*) from agent_jobs where kind = 'credential_sync'"
                      + " and cluster_id = ? and result->>'credentialId' = ?",
                  UUID.fromString(clusterId),
                  id))
          .isPositive();
      assertThat(admin.secrets().inNamespace(NS_DENY).withName(deniedOnly).get()).isNull();
      ok(hub.send("DELETE", "/api/v2/credentials/" + deniedId, OWNER_TOKEN, null), 204);
      // The credential's own view says the same.
      JsonNode targets = ok(hub.get("/api/v2/credentials/" + id, OWNER_TOKEN), 200).get("targets");
      assertThat(targets)
          .anyMatch(
              t ->
                  t.get("namespace").asText().equals(NS_DENY)
                      && t.get("deniedByPolicy").asBoolean()
                      && t.get("error").asText().contains("denies namespaces matching"));
      // One audit entry for the denial, naming the credential, namespace, reason and policy.
      JsonNode entries =
          ok(hub.get("/api/v2/audit?action=credential.sync_denied&target=" + id, OWNER_TOKEN), 200)
              .get("items");
      assertThat(entries).hasSize(1);
      JsonNode details = entries.get(0).get("details");
      assertThat(details.get("name").asText()).isEqualTo(name);
      assertThat(details.get("cluster").asText()).isEqualTo(cluster);
      assertThat(details.get("namespaces").toString()).contains(NS_DENY).doesNotContain(NS_A);
      assertThat(details.get("reasons").toString()).contains("denies namespaces matching");
      assertThat(details.get("policy").asText()).isEqualTo("credentials");
      assertThat(details.get("version").asInt()).isGreaterThan(1);
      assertThat(entries.toString()).doesNotContain(CANARY);
      // The sync's workflow history is the organization's to read: ids, names and the decision.
      Response history =
          hub.get("/api/v2/workflows/credential-sync-" + clusterId + "/history", OWNER_TOKEN);
      assertThat(history.status()).as(history.raw()).isEqualTo(200);
      assertThat(history.raw()).contains("CredSyncDecide").doesNotContain(CANARY);

      // The shipped policy back: publishing it re-decides the cluster, and the namespace is synced.
      ok(
          hub.send("PUT", "/api/v2/policies/credentials", OWNER_TOKEN, Map.of("rego", shipped)),
          200);
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                assertThat(admin.secrets().inNamespace(NS_DENY).withName(name).get()).isNotNull();
                JsonNode st = status(clusterId).get(name + "/" + NS_DENY);
                assertThat(st.get("status").asText()).isEqualTo("synced");
                assertThat(st.get("deniedByPolicy").asBoolean()).isFalse();
              });

      // Denied again later: the Secret the agent wrote is removed, not left behind.
      ok(
          hub.send("PUT", "/api/v2/policies/credentials", OWNER_TOKEN, Map.of("rego", denying)),
          200);
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(admin.secrets().inNamespace(NS_DENY).withName(name).get()).isNull());
      assertThat(admin.secrets().inNamespace(NS_A).withName(name).get()).isNotNull();
      ok(hub.send("DELETE", "/api/v2/credentials/" + id, OWNER_TOKEN, null), 204);
    } finally {
      hub.send("PUT", "/api/v2/policies/credentials", OWNER_TOKEN, Map.of("rego", shipped));
    }
  }

  @Test
  void anAgentThatReconnectsIsSyncedAgain() throws Exception {
    String cluster = "reconnect-" + S;
    Map<String, String> env = env(cluster, "observe,credential.sync");
    String name = "again-" + S;
    try (KubernetesClient agentClient = kube.adminClient()) {
      String id;
      String clusterId;
      try (Agent agent = agent(env, agentClient)) {
        clusterId = clusterId(cluster);
        id =
            ok(
                    hub.post(
                        "/api/v2/credentials",
                        OWNER_TOKEN,
                        Map.of("name", name, "type", "opaque", "data", Map.of("token", "t1"))),
                    201)
                .get("id")
                .asText();
        ok(assign(id, clusterId, List.of(NS_B)), 200);
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(admin.secrets().inNamespace(NS_B).withName(name).get()).isNotNull());
      }
      // While the agent is away someone deletes the Secret; the values change too.
      admin.secrets().inNamespace(NS_B).withName(name).delete();
      ok(
          hub.send(
              "PUT",
              "/api/v2/credentials/" + id,
              OWNER_TOKEN,
              Map.of("data", Map.of("token", "t2"))),
          200);
      assertThat(status(clusterId).get(name + "/" + NS_B).get("status").asText())
          .isEqualTo("pending");
      try (Agent again = agent(env, agentClient)) {
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .untilAsserted(
                () -> {
                  Secret s = admin.secrets().inNamespace(NS_B).withName(name).get();
                  assertThat(s.getType()).isEqualTo("Opaque");
                  assertThat(data(s, "token")).isEqualTo("t2");
                  assertThat(status(clusterId).get(name + "/" + NS_B).get("status").asText())
                      .isEqualTo("synced");
                });
        ok(hub.send("DELETE", "/api/v2/credentials/" + id, OWNER_TOKEN, null), 204);
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> assertThat(admin.secrets().inNamespace(NS_B).withName(name).get()).isNull());
      }
    }
  }

  @Test
  void aCredentialGoesAsAJobOfTheOutboxAndASentJobIsSentAgainAfterTheAgentReconnects()
      throws Exception {
    String cluster = "jobs-" + S;
    String name = "job-" + S;
    // Every state a credential_sync job passes through, in order (the outbox keeps only the last).
    HubTestSupport.exec(
        "create table if not exists cs_job_states (seq bigserial, ref text, state text)");
    HubTestSupport.exec(
        "create or replace function cs_job_state() returns trigger language plpgsql as $$"
            + " begin insert into cs_job_states (ref, state) values (new.ref, new.state);"
            + " return null; end $$");
    HubTestSupport.exec(
        "create trigger cs_job_state after insert or update of state on agent_jobs for each row"
            + " when (new.kind = 'credential_sync') execute function cs_job_state()");
    try (Cuttable link = new Cuttable(hub.grpcAddress());
        KubernetesClient agentClient = kube.adminClient()) {
      Map<String, String> env = env(cluster, "observe,credential.sync");
      env.put(AgentConfig.HUB_ADDRESS, "127.0.0.1:" + link.port());
      env.put(AgentConfig.RECONNECT_MAX_SECONDS, "1");
      try (Agent agent = agent(env, agentClient)) {
        String clusterId = clusterId(cluster);
        String id =
            ok(
                    hub.post(
                        "/api/v2/credentials",
                        OWNER_TOKEN,
                        Map.of("name", name, "type", "opaque", "data", Map.of("token", CANARY))),
                    201)
                .get("id")
                .asText();
        ok(assign(id, clusterId, List.of(NS_A)), 200);
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .untilAsserted(
                () -> {
                  assertThat(data(admin.secrets().inNamespace(NS_A).withName(name).get(), "token"))
                      .isEqualTo(CANARY);
                  assertThat(status(clusterId).get(name + "/" + NS_A).get("status").asText())
                      .isEqualTo("synced");
                });
        // The credential went as one job of the outbox, named by the round's request id.
        String ref = ref(id);
        await()
            .atMost(Duration.ofSeconds(15))
            .until(() -> states(ref), s -> s.contains("completed"));
        assertThat(states(ref)).containsExactly("queued", "sent", "reported", "completed");
        assertThat(
                HubTestSupport.count(
                    "select count(*) from agent_jobs where kind = 'credential_sync'"
                        + " and cluster_id = ? and ref = ? and attempts = 1 and payload is null"
                        + " and task_token is null and result->>'credentialId' = ?",
                    UUID.fromString(clusterId),
                    ref,
                    id))
            .isEqualTo(1);

        // The stream carried it, the answer was lost, then the link broke: after the agent's Hello
        // the hub sends the job again, and the agent answers from memory without writing again.
        HubTestSupport.exec(
            "update agent_jobs set state = 'sent', result = null, reported_at = null"
                + " where kind = 'credential_sync' and ref = ?",
            ref);
        String written =
            admin
                .secrets()
                .inNamespace(NS_A)
                .withName(name)
                .get()
                .getMetadata()
                .getResourceVersion();
        LOGS.clear();
        link.cut();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> states(ref), s -> s.size() >= 8 && s.get(7).equals("completed"));
        // The first "sent" after "completed" is this test's own update; the second, the hub's.
        assertThat(states(ref))
            .containsExactly(
                "queued", "sent", "reported", "completed", "sent", "sent", "reported", "completed");
        assertThat(new ArrayList<>(LOGS))
            .anyMatch(l -> l.contains("credential sync " + ref + " was already run"));
        assertThat(
                HubTestSupport.count(
                    "select count(*) from agent_jobs where ref = ? and attempts = 2", ref))
            .isEqualTo(1);
        // The reconnect synced the cluster again (a new round: its own job); the Secret holds the
        // same value, and the repeated job wrote nothing.
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .untilAsserted(
                () ->
                    assertThat(status(clusterId).get(name + "/" + NS_A).get("status").asText())
                        .isEqualTo("synced"));
        assertThat(new ArrayList<>(LOGS))
            .noneMatch(l -> l.contains("credential sync " + ref + " failed"));
        assertThat(data(admin.secrets().inNamespace(NS_A).withName(name).get(), "token"))
            .isEqualTo(CANARY);
        assertThat(written).isNotBlank();
        ok(hub.send("DELETE", "/api/v2/credentials/" + id, OWNER_TOKEN, null), 204);
      }
    } finally {
      HubTestSupport.exec("drop trigger if exists cs_job_state on agent_jobs");
      HubTestSupport.exec("drop function if exists cs_job_state()");
      HubTestSupport.exec("drop table if exists cs_job_states");
    }
  }

  /** The request id of the credential's job in the round that last decided its targets. */
  static String ref(String credentialId) throws Exception {
    try (var c = HubTestSupport.db();
        var ps =
            c.prepareStatement(
                "select distinct decision_id::text from credential_assignments"
                    + " where credential_id = ?")) {
      ps.setObject(1, UUID.fromString(credentialId));
      try (var rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return CredentialSyncJobs.requestId(rs.getString(1), UUID.fromString(credentialId));
      }
    }
  }

  static List<String> states(String ref) throws Exception {
    List<String> out = new ArrayList<>();
    try (var c = HubTestSupport.db();
        var ps = c.prepareStatement("select state from cs_job_states where ref = ? order by seq")) {
      ps.setString(1, ref);
      try (var rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  /** A TCP relay to the hub whose connections can be cut, as a network break would. */
  static final class Cuttable implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    Cuttable(String target) throws IOException {
      String[] hostPort = target.split(":");
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread accept =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try {
                    Socket in = server.accept();
                    Socket out = new Socket(hostPort[0], Integer.parseInt(hostPort[1]));
                    open.add(in);
                    open.add(out);
                    pipe(in, out);
                    pipe(out, in);
                  } catch (IOException e) {
                    // closed, or the hub refused: the agent retries
                  }
                }
              },
              "cuttable-accept");
      accept.setDaemon(true);
      accept.start();
    }

    private static void pipe(Socket from, Socket to) {
      Thread t =
          new Thread(
              () -> {
                try {
                  from.getInputStream().transferTo(to.getOutputStream());
                } catch (IOException e) {
                  // cut
                } finally {
                  try {
                    to.close();
                    from.close();
                  } catch (IOException e) {
                    // already closed
                  }
                }
              },
              "cuttable-pipe");
      t.setDaemon(true);
      t.start();
    }

    int port() {
      return server.getLocalPort();
    }

    /** Closes every connection; new ones are relayed again. */
    void cut() throws IOException {
      for (Socket s : open) {
        s.close();
      }
      open.clear();
    }

    @Override
    public void close() throws IOException {
      server.close();
      cut();
    }
  }

  @Test
  void anAgentWithoutTheCapabilityIsRefusedByTheHub() throws Exception {
    String cluster = "nocreds-" + S;
    try (KubernetesClient agentClient = kube.adminClient();
        Agent agent = agent(cluster, "observe", agentClient)) {
      String clusterId = clusterId(cluster);
      String id =
          ok(
                  hub.post(
                      "/api/v2/credentials",
                      OWNER_TOKEN,
                      Map.of(
                          "name", "opaque-" + S, "type", "opaque", "data", Map.of("token", "x"))),
                  201)
              .get("id")
              .asText();
      Response refused = assign(id, clusterId, List.of(NS_A));
      assertThat(refused.status()).as(refused.raw()).isEqualTo(409);
      assertThat(refused.raw()).contains("credential.sync");
      assertThat(status(clusterId)).isEmpty();
      assertThat(admin.secrets().inNamespace(NS_A).withName("opaque-" + S).get()).isNull();
    }
  }

  static String memberToken(String role) {
    JsonNode m =
        ok(
            hub.post(
                "/api/v2/members",
                OWNER_TOKEN,
                Map.of(
                    "email", role + "-" + S + "@example.com", "name", "A " + role, "role", role)),
            201);
    hub.grantEverything(m.get("id").asText()); // roles, not grants, are under test
    return ok(
            hub.post(
                "/api/v2/members/" + m.get("id").asText() + "/tokens",
                OWNER_TOKEN,
                Map.of("name", "t")),
            201)
        .get("token")
        .asText();
  }

  /** pg_dump of the whole test database, data included (bytea as hex, text as is). */
  static String pgDump() throws Exception {
    URI uri = URI.create(HubTestSupport.DB_URL.substring("jdbc:".length()));
    ProcessBuilder pb =
        new ProcessBuilder(
            "pg_dump",
            "-h",
            uri.getHost(),
            "-p",
            String.valueOf(uri.getPort() < 0 ? 5432 : uri.getPort()),
            "-U",
            HubTestSupport.DB_USER,
            "--no-owner",
            uri.getPath().substring(1).replaceAll("\\?.*", ""));
    pb.environment().put("PGPASSWORD", HubTestSupport.DB_PASSWORD);
    pb.redirectErrorStream(true);
    Process p = pb.start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    assertThat(p.waitFor()).isZero();
    String dump = out.toString(StandardCharsets.UTF_8);
    assertThat(dump).contains("COPY public.credentials");
    return dump;
  }
}

package dev.gitopshq.hub.drift;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Drift on the real API server (tools/dev/kube.sh): a project's environment delivers to the test's
 * cluster, its deploy branch holds a Deployment and a ConfigMap that were applied with the
 * direct-deploy field manager; the real agent compares them with server-side-apply dry runs.
 * Nothing drifts right after the deploy (the defaults the API server added do not count); a scale
 * and a label edit in the cluster become a functional and a cosmetic finding with their paths;
 * resolve-drift, under an approval policy, re-applies the desired state and the next check resolves
 * the finding; a comparison the API server refuses is not compared (with its answer), never in
 * sync; another organization sees 404.
 */
@Tag("e2e")
class DriftEndToEndIT {
  static final String SUFFIX = UUID.randomUUID().toString().substring(0, 6);
  static final String NS = "drift-" + SUFFIX;
  static final String CLUSTER = "drift-kube-" + SUFFIX;
  static final String ENV = "driftenv" + SUFFIX;
  static final String MANAGER = "gitopshq-agent";

  static RealKube kube;
  static KubernetesClient admin;
  static OpaTestServer opa;
  static HubTestSupport hub;
  static String clusterId;

  static final String DEPLOYMENT =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
        namespace: %s
        labels:
          app: web
      spec:
        replicas: 2
        selector:
          matchLabels:
            app: web
        template:
          metadata:
            labels:
              app: web
          spec:
            containers:
              - name: web
                image: registry.example/web:1
      """
          .formatted(NS);

  static final String CONFIGMAP =
      """
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
        namespace: %s
        labels:
          tier: web
      data:
        mode: fast
      """
          .formatted(NS);

  @BeforeAll
  static void start() {
    kube = RealKube.shared();
    admin = kube.adminClient();
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
    opa = OpaTestServer.startNew();
    hub =
        new HubTestSupport()
            .property("opa.url", opa.url())
            .property("opa.token", opa.token())
            // The interval asks for one check as soon as the agent connects, then not again.
            .property("gitopshq.drift.interval", "1h")
            .property("gitopshq.drift.after-deployment-delay", "0s")
            .property("gitopshq.drift.sweep", "500ms")
            // Short, so a check of a cluster whose agent went away fails within the test.
            .property("gitopshq.drift.agent-timeout", "6s")
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
  }

  @AfterAll
  static void stop() {
    if (hub != null) {
      hub.close();
    }
    if (opa != null) {
      opa.close();
    }
    if (admin != null) {
      admin.namespaces().withName(NS).delete();
      admin.close();
    }
  }

  @Test
  void driftIsFoundWithItsPathsAndResolvedUnderTheApprovalPolicy() throws Exception {
    UUID org = UUID.fromString(orgOf());
    HubTestSupport.exec(
        "insert into environments (id, org_id, name, position, created_at)"
            + " select ?, ?, ?, coalesce(max(position), 0) + 1, now() from environments"
            + " where org_id = ? on conflict (org_id, name) do nothing",
        UUID.randomUUID(),
        org,
        ENV,
        org);
    JsonNode created =
        ok(hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", CLUSTER, "environment", ENV)));
    clusterId = created.get("cluster").get("id").asText();
    String projectId =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "shop-" + SUFFIX)))
            .get("id")
            .asText();
    ok(
        hub.send(
            "PUT",
            "/api/v2/projects/" + projectId + "/environments/" + ENV,
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", CLUSTER)))));

    // The deployment: the deploy branch holds the objects, and they are applied as direct deploy
    // applies them (server-side apply with its field manager).
    ProjectRepos repos = hub.bean(ProjectRepos.class);
    repos.commit(
        org,
        UUID.fromString(projectId),
        ProjectRepos.deployBranch(ENV),
        null,
        List.of(
            new TreeEdit.PutFile(
                CLUSTER + "/acme/web/deployment.yaml", DEPLOYMENT.getBytes(StandardCharsets.UTF_8)),
            new TreeEdit.PutFile(
                CLUSTER + "/acme/web/configmap.yaml", CONFIGMAP.getBytes(StandardCharsets.UTF_8)),
            new TreeEdit.PutFile(
                CLUSTER + "/acme/web/kustomization.yaml",
                "resources: [deployment.yaml]\n".getBytes(StandardCharsets.UTF_8))),
        Ident.HUB,
        "Deploy release #1 of shop to " + ENV);
    apply(DEPLOYMENT);
    apply(CONFIGMAP);

    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(
        AgentConfig.AGENT_TOKEN_PATH,
        Files.createTempDirectory("drift").resolve("a.json").toString());
    env.put(AgentConfig.CLUSTER_NAME, CLUSTER);
    env.put(AgentConfig.CAPABILITIES, "observe,direct.deploy");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());

    try (KubernetesClient agentClient = kube.adminClient();
        Agent agent = Agent.start(AgentConfig.fromEnv(env), () -> agentClient)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();

      // The interval checks the newly connected cluster at once: nothing differs right after the
      // deploy, though the API server defaulted many fields.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  HubTestSupport.count(
                          "select count(*) from drift_checks where cluster_id = ?::uuid"
                              + " and trigger = 'interval' and status = 'completed'"
                              + " and objects = 2 and drifted = 0",
                          clusterId)
                      == 1);
      // On demand too.
      JsonNode first = awaitCheck(requestCheck());
      assertThat(first.get("status").asText()).as(first.toString()).isEqualTo("completed");
      assertThat(first.get("objects").asInt()).isEqualTo(2);
      assertThat(first.get("drifted").asInt()).isZero();
      assertThat(first.get("unknown").asInt()).isZero();
      assertThat(first.get("summary").asText()).isEqualTo("2 objects: 0 drifted, all in sync");
      assertThat(list("").get("items")).isEmpty();
      assertThat(list("").get("latestCheck").get("id").asText())
          .isEqualTo(first.get("id").asText());

      // Someone scales the Deployment and edits the ConfigMap's label in the cluster.
      admin.apps().deployments().inNamespace(NS).withName("web").scale(3);
      admin
          .configMaps()
          .inNamespace(NS)
          .withName("settings")
          .edit(
              c -> {
                c.getMetadata().getLabels().put("tier", "batch");
                return c;
              });
      JsonNode second = awaitCheck(requestCheck());
      assertThat(second.get("drifted").asInt()).as(second.toString()).isEqualTo(2);
      assertThat(second.get("opened").asInt()).isEqualTo(2);

      JsonNode open = list("?state=open").get("items");
      assertThat(open).hasSize(2);
      JsonNode functional = list("?severity=functional").get("items");
      assertThat(functional).hasSize(1);
      assertThat(functional.get(0).get("object").get("kind").asText()).isEqualTo("Deployment");
      JsonNode cosmetic = list("?severity=cosmetic&namespace=" + NS).get("items");
      assertThat(cosmetic).hasSize(1);
      assertThat(cosmetic.get(0).get("object").get("kind").asText()).isEqualTo("ConfigMap");
      assertThat(list("?namespace=elsewhere").get("items")).isEmpty();
      assertThat(list("?state=resolved").get("items")).isEmpty();

      String deploymentFinding = functional.get(0).get("id").asText();
      JsonNode detail = finding(deploymentFinding);
      assertThat(paths(detail)).containsExactly("spec.replicas");
      assertThat(detail.get("differences").get(0).get("desired").asText()).isEqualTo("2");
      assertThat(detail.get("differences").get(0).get("live").asText()).isEqualTo("3");
      assertThat(detail.get("source").get("path").asText())
          .isEqualTo(CLUSTER + "/acme/web/deployment.yaml");
      assertThat(detail.get("fieldManager").asText()).isEqualTo(MANAGER);
      assertThat(detail.get("method").asText()).isEqualTo("dry-run-apply");
      assertThat(detail.has("desiredManifest")).isFalse();
      JsonNode cm = finding(cosmetic.get(0).get("id").asText());
      assertThat(paths(cm)).containsExactly("metadata.labels.tier");
      assertThat(cm.get("differences").get(0).get("live").asText()).isEqualTo("\"batch\"");

      // Seen again: the same finding, first detection kept.
      awaitCheck(requestCheck());
      JsonNode again = finding(deploymentFinding);
      assertThat(again.get("firstDetectedAt").asText())
          .isEqualTo(detail.get("firstDetectedAt").asText());
      assertThat(again.get("lastSeenAt").asText()).isNotEqualTo(detail.get("lastSeenAt").asText());

      // Bad filters name the field.
      assertThat(hub.get(base() + "?severity=loud", OWNER_TOKEN).body().toString())
          .contains("severity");
      assertThat(hub.get(base() + "?state=gone", OWNER_TOKEN).status()).isEqualTo(400);

      // Resolve under the approval policy: another admin approves, the agent re-applies.
      Response bind =
          hub.send(
              "PUT",
              "/api/v2/clusters/" + clusterId + "/approval-policy",
              OWNER_TOKEN,
              Map.of("requireApproval", List.of("resolve-drift"), "requiredApprovers", 1));
      assertThat(bind.status()).as(bind.raw()).isEqualTo(200);
      String approver = adminToken();
      Response resolve =
          hub.post(
              base() + "/" + deploymentFinding + "/resolve",
              OWNER_TOKEN,
              Map.of("reason", "scaled by hand during the incident"));
      assertThat(resolve.status()).as(resolve.raw()).isEqualTo(202);
      String commandId = resolve.body().get("id").asText();
      awaitCommand(commandId, "pending_approval");
      assertThat(finding(deploymentFinding).get("resolveCommands").get(0).get("status").asText())
          .isEqualTo("pending_approval");
      assertThat(replicas()).isEqualTo(3);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  hub.get("/api/v2/commands/" + commandId, OWNER_TOKEN)
                          .body()
                          .get("approvals")
                          .size()
                      == 1);
      String approvalId =
          hub.get("/api/v2/commands/" + commandId, OWNER_TOKEN)
              .body()
              .get("approvals")
              .get(0)
              .get("id")
              .asText();
      Response approve =
          hub.post("/api/v2/approvals/" + approvalId + "/approve", approver, Map.of());
      assertThat(approve.status()).as(approve.raw()).isEqualTo(202);
      JsonNode done = awaitCommand(commandId, "completed");
      assertThat(done.get("output").asText()).contains("re-applied with server-side apply");
      assertThat(replicas()).isEqualTo(2);

      // The next check resolves the finding; the ConfigMap's stays open.
      JsonNode third = awaitCheck(requestCheck());
      assertThat(third.get("resolved").asInt()).as(third.toString()).isEqualTo(1);
      JsonNode resolved = finding(deploymentFinding);
      assertThat(resolved.get("open").asBoolean()).isFalse();
      assertThat(resolved.get("resolvedAt").isNull()).isFalse();
      assertThat(list("?state=resolved").get("items")).hasSize(1);
      assertThat(list("?state=open").get("items")).hasSize(1);
      assertThat(
              hub.post(base() + "/" + deploymentFinding + "/resolve", OWNER_TOKEN, Map.of())
                  .status())
          .isEqualTo(409);

      // An Argo CD Application manages the ConfigMap now: resolving it needs argocd.write, which
      // this agent did not announce, so the hub refuses it.
      admin
          .configMaps()
          .inNamespace(NS)
          .withName("settings")
          .edit(
              c -> {
                c.getMetadata().getLabels().put("argocd.argoproj.io/instance", "shop");
                return c;
              });
      awaitCheck(requestCheck());
      String configFinding = cosmetic.get(0).get("id").asText();
      assertThat(finding(configFinding).get("argoApplication").asText()).isEqualTo("argocd/shop");
      assertThat(finding(configFinding).get("fieldManager").asText())
          .isEqualTo("argocd-controller");
      Response refused =
          hub.post(base() + "/" + configFinding + "/resolve", OWNER_TOKEN, Map.of("reason", "x"));
      assertThat(refused.status()).as(refused.raw()).isEqualTo(409);
      assertThat(refused.body().get("message").asText()).contains("argocd.write");

      // A deleted object is a functional finding: the same open one, now missing.
      admin.configMaps().inNamespace(NS).withName("settings").delete();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> admin.configMaps().inNamespace(NS).withName("settings").get() == null);
      awaitCheck(requestCheck());
      JsonNode missing = finding(configFinding);
      assertThat(missing.get("state").asText()).isEqualTo("missing");
      assertThat(missing.get("severity").asText()).isEqualTo("functional");
      assertThat(missing.get("open").asBoolean()).isTrue();

      // A comparison the API server refuses is not compared, with its answer as the reason: not
      // counted in sync, not a finding (a deployment that sets an invalid replica count).
      repos.commit(
          org,
          UUID.fromString(projectId),
          ProjectRepos.deployBranch(ENV),
          null,
          List.of(
              new TreeEdit.PutFile(
                  CLUSTER + "/acme/web/deployment.yaml",
                  DEPLOYMENT
                      .replace("replicas: 2", "replicas: -1")
                      .getBytes(StandardCharsets.UTF_8))),
          Ident.HUB,
          "Deploy release #2 of shop to " + ENV);
      JsonNode invalid = awaitCheck(requestCheck());
      assertThat(invalid.get("status").asText()).as(invalid.toString()).isEqualTo("completed");
      assertThat(invalid.get("objects").asInt()).isEqualTo(2);
      assertThat(invalid.get("unknown").asInt()).isEqualTo(1);
      assertThat(invalid.get("drifted").asInt()).as("the missing ConfigMap").isEqualTo(1);
      assertThat(invalid.get("summary").asText()).isEqualTo("2 objects: 1 drifted, 1 not compared");
      JsonNode notCompared = invalid.get("notCompared");
      assertThat(notCompared).hasSize(1);
      assertThat(notCompared.get(0).get("object").get("kind").asText()).isEqualTo("Deployment");
      assertThat(notCompared.get(0).get("object").get("group").asText()).isEqualTo("apps");
      assertThat(notCompared.get(0).get("source").get("path").asText())
          .isEqualTo(CLUSTER + "/acme/web/deployment.yaml");
      assertThat(notCompared.get(0).get("reason").asText())
          .startsWith("the API server answered 422")
          .contains("replicas");
      JsonNode latest = list("?state=open").get("latestCheck");
      assertThat(latest.get("id").asText()).isEqualTo(invalid.get("id").asText());
      assertThat(latest.get("unknown").asInt()).isEqualTo(1);
      assertThat(list("?state=open").get("items")).hasSize(1);
      assertThat(
              HubTestSupport.count(
                  "select count(*) from audit_log where action = 'drift.checked'"
                      + " and details::jsonb->>'checkId' = ?"
                      + " and details::jsonb->>'unknown' = '1'",
                  invalid.get("id").asText()))
          .isEqualTo(1);

      // The interval asked for exactly one check in its hour.
      assertThat(
              HubTestSupport.count(
                  "select count(*) from drift_checks where cluster_id = ?::uuid"
                      + " and trigger = 'interval' and status = 'completed'",
                  clusterId))
          .isEqualTo(1);

      // Audited: the checks' summaries, the detection and the resolution.
      assertThat(
              HubTestSupport.count(
                  "select count(*) from audit_log where action = 'drift.checked'"
                      + " and target_id = ?",
                  clusterId))
          .isGreaterThanOrEqualTo(4);
      assertThat(
              HubTestSupport.count(
                  "select count(*) from audit_log where action = 'drift.detected'"
                      + " and details::jsonb->>'clusterId' = ?",
                  clusterId))
          .isEqualTo(2);
      assertThat(
              HubTestSupport.count(
                  "select count(*) from audit_log where action = 'drift.resolved'"
                      + " and target_id = ?",
                  deploymentFinding))
          .isEqualTo(1);

      // Another organization sees none of it.
      String other = otherOrgToken();
      assertThat(hub.get(base(), other).status()).isEqualTo(404);
      assertThat(hub.get(base() + "/" + deploymentFinding, other).status()).isEqualTo(404);
      assertThat(hub.post(base() + "/checks", other, Map.of()).status()).isEqualTo(404);
      assertThat(hub.post(base() + "/" + deploymentFinding + "/resolve", other, Map.of()).status())
          .isEqualTo(404);
    }
  }

  static void apply(String yaml) {
    GenericKubernetesResource r = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    admin.resource(r).inNamespace(NS).fieldManager(MANAGER).forceConflicts().serverSideApply();
  }

  static int replicas() {
    return admin.apps().deployments().inNamespace(NS).withName("web").get().getSpec().getReplicas();
  }

  static DriftApi drift() {
    return new DriftApi(hub, clusterId);
  }

  static String base() {
    return drift().base();
  }

  static String requestCheck() {
    return drift().requestCheck();
  }

  static JsonNode awaitCheck(String id) {
    return drift().awaitCheck(id);
  }

  static JsonNode awaitCommand(String id, String status) {
    return drift().awaitCommand(id, status);
  }

  static JsonNode list(String query) {
    return drift().list(query);
  }

  static JsonNode finding(String id) {
    return drift().finding(id);
  }

  static List<String> paths(JsonNode finding) {
    return DriftApi.paths(finding);
  }

  static JsonNode ok(Response r) {
    assertThat(r.status()).as(r.raw()).isBetween(200, 299);
    return r.body();
  }

  static String adminToken() {
    JsonNode m =
        ok(
            hub.post(
                "/api/v2/members",
                OWNER_TOKEN,
                Map.of(
                    "email",
                    "admin-" + SUFFIX + "@example.com",
                    "name",
                    "admin",
                    "role",
                    "admin")));
    return ok(hub.post(
            "/api/v2/members/" + m.get("id").asText() + "/tokens",
            OWNER_TOKEN,
            Map.of("name", "t")))
        .get("token")
        .asText();
  }

  static String otherOrgToken() {
    String slug = "drift-" + SUFFIX;
    return ok(hub.post(
            "/api/v2/orgs",
            OWNER_TOKEN,
            Map.of(
                "slug",
                slug,
                "name",
                "Other",
                "owner",
                Map.of("email", "o@" + slug + ".example.com", "name", "O"))))
        .get("ownerToken")
        .asText();
  }

  static String orgOf() {
    try (var c = HubTestSupport.db();
        var ps = c.prepareStatement("select id from organizations where slug = 'default'");
        var rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}

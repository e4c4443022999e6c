package dev.gitopshq.hub.release;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.delivery.DeliveryFixtures;
import dev.gitopshq.hub.drift.DriftApi;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Direct deploy end to end: a real hub (PostgreSQL, OPA, Temporal's test server, the hosted
 * repositories), a real agent with direct.deploy and a real kube-apiserver with controllers and
 * kwok's node. A project environment delivers to its cluster in delivery mode {@code direct}; a
 * release makes the agent apply the manifest bundle's objects with server-side apply, the next
 * release prunes the object it dropped, a rollback restores the first release's objects, a repeat
 * of an apply id is answered without applying again, and a deployment to a cluster whose agent
 * lacks direct.deploy is refused (409) with nothing created or written (the workflow's own check
 * for an agent that changes in between is DeploymentWorkflowTest's). Last, issue 24's report: a
 * second project's workload of the make-run demo chart (no namespace in its templates) lands in its
 * tenant's namespace, a hand-made scale is found as drift and resolved. The tests build on each
 * other and run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class DirectDeployIT {
  static final String SUFFIX = UUID.randomUUID().toString().substring(0, 6);
  static final String ENV = "direct-dev";
  static final String CLUSTER = "direct-" + SUFFIX;
  static final String OFF_CLUSTER = "direct-off-" + SUFFIX;
  static final String TENANT = "acme";
  static final String NS = "dd" + SUFFIX + "-acme";
  static final String BUNDLE = "dd-app-" + SUFFIX;
  static final String FIELD_MANAGER = "gitopshq-it";
  // The Helm step's tenant and the namespace the default pattern gives it in ENV.
  static final String HELM_TENANT = "h" + SUFFIX;
  static final String HELM_NS = HELM_TENANT + "-" + ENV;
  // The make-run demo chart (tools/dev/run.sh): its templates name no namespace.
  static final Path DEMO_CHART = Path.of("..", "tools", "dev", "demo-chart", "demo-web");

  static RealKube kube;
  static KubernetesClient admin;
  static OpaTestServer opa;
  static HubTestSupport hub;
  static ProjectRepos repos;
  static UUID orgId;
  static String projectId;
  static Agent agent;
  static Agent offAgent;
  static KubernetesClient agentClient;

  static String configMap(String value) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: \""
        + value
        + "\"\n";
  }

  static String deployment(String tag) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
        spec:
          replicas: 2
          selector:
            matchLabels: {app: web}
          template:
            metadata:
              labels: {app: web}
            spec:
              containers:
              - name: web
                image: registry.example/web:%s
        """
        .formatted(tag);
  }

  @BeforeAll
  static void start() throws Exception {
    kube = RealKube.shared();
    admin = kube.adminClient();
    for (String ns : List.of(NS, HELM_NS)) {
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .serverSideApply();
    }
    opa = OpaTestServer.startNew();
    hub =
        new HubTestSupport()
            .property("opa.url", opa.url())
            .property("opa.token", opa.token())
            .property("opa.republish-interval", "1s")
            .property("gitopshq.drift.sweep", "500ms")
            .start();
    repos = hub.bean(ProjectRepos.class);
    orgId = UUID.fromString(ReleaseEndToEndIT.orgOf());
    ReleaseEndToEndIT.hub = hub;
    ReleaseEndToEndIT.orgId = orgId;
    ReleaseEndToEndIT.repos = repos;
    ReleaseEndToEndIT.awaitReleasePolicies();
    // direct-dev is not the last environment of the organization, so the default release policy
    // deploys it without approval.
    ReleaseEndToEndIT.environment(ENV);
    ReleaseEndToEndIT.environment("direct-last");
    ReleaseEndToEndIT.tenant(TENANT);

    agentClient = kube.adminClient();
    agent = agent(CLUSTER, "observe,direct.deploy");
    offAgent = agent(OFF_CLUSTER, "observe");

    ok(
        hub.post(
            "/api/v2/manifest-bundles",
            OWNER_TOKEN,
            Map.of(
                "name",
                BUNDLE,
                "files",
                Map.of("configmap.yaml", configMap("one"), "deployment.yaml", deployment("1")))));
    projectId =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "dd-shop-" + SUFFIX)))
            .get("id")
            .asText();
    ReleaseEndToEndIT.projectId = projectId;
  }

  /** The environment the direct-mode cluster's agent was started with (to restart it). */
  static Map<String, String> agentEnv;

  static Agent agent(String name, String capabilities) throws Exception {
    JsonNode created = ok(hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)));
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(
        AgentConfig.AGENT_TOKEN_PATH, Files.createTempDirectory("dd").resolve("a.json").toString());
    env.put(AgentConfig.CLUSTER_NAME, name);
    env.put(AgentConfig.CAPABILITIES, capabilities);
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());
    if (name.equals(CLUSTER)) {
      agentEnv = env;
    }
    Agent a =
        Agent.start(
            AgentConfig.fromEnv(env), new DirectDeployConfig(FIELD_MANAGER, ""), () -> agentClient);
    assertThat(a.awaitConnected(Duration.ofSeconds(30))).isTrue();
    return a;
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {agent, offAgent, hub, opa, agentClient}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // Best effort.
        }
      }
    }
    if (admin != null) {
      admin.namespaces().withName(NS).delete();
      admin.namespaces().withName(HELM_NS).delete();
      admin.close();
    }
  }

  // ---- the scenario -------------------------------------------------------------------------

  @Test
  @Order(1)
  void anEnvironmentsClustersChooseTheirDeliveryMode() {
    Response bad =
        hub.send(
            "PUT",
            project("/environments/" + ENV),
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", CLUSTER, "deliveryMode", "kubectl"))));
    assertThat(bad.status()).as(bad.raw()).isEqualTo(400);
    assertThat(bad.raw()).contains("clusters[0].deliveryMode").contains("argocd, flux, direct");
    Response badEnv =
        hub.send(
            "PUT",
            project("/environments/" + ENV),
            OWNER_TOKEN,
            Map.of("deliveryMode", "helm", "clusters", List.of(Map.of("cluster", CLUSTER))));
    assertThat(badEnv.status()).as(badEnv.raw()).isEqualTo(400);
    assertThat(badEnv.raw()).contains("\"deliveryMode\"");

    JsonNode env =
        ok(
            hub.send(
                "PUT",
                project("/environments/" + ENV),
                OWNER_TOKEN,
                Map.of(
                    "namespacePattern",
                    "dd" + SUFFIX + "-{{ .tenant }}",
                    "clusters",
                    List.of(Map.of("cluster", CLUSTER, "deliveryMode", "direct")))));
    assertThat(env.toString()).contains("\"deliveryMode\":\"direct\"");
    JsonNode listed = ok(hub.get(project("/environments"), OWNER_TOKEN));
    assertThat(listed.toString()).contains("\"cluster\":\"" + CLUSTER + "\"");
    assertThat(listed.toString()).contains("\"deliveryMode\":\"direct\"");

    ok(hub.send("PUT", project("/tenants/" + TENANT), OWNER_TOKEN, Map.of()));
    ok(
        hub.post(
            project("/bindings"),
            OWNER_TOKEN,
            Map.of(
                "name",
                "app",
                "kind",
                "manifests",
                "source",
                BUNDLE,
                "targets",
                List.of(Map.of("tenant", TENANT, "environment", ENV)))));
    ReleaseEndToEndIT.Generator.awaitDelivered();
    // Git records the mode with the environment's configuration.
    String config =
        new String(
            repos
                .readFiles(
                    orgId,
                    UUID.fromString(projectId),
                    repos.head(orgId, UUID.fromString(projectId), "main").orElseThrow(),
                    "config/environments")
                .get(ENV + ".yaml"));
    assertThat(config).contains("deliveryMode: direct");
  }

  @Test
  @Order(2)
  void aReleaseIsAppliedByTheAgentAndAwaitsRolloutHealth() {
    JsonNode done = release("first direct release");

    Deployment web = admin.apps().deployments().inNamespace(NS).withName("web").get();
    ConfigMap settings = admin.configMaps().inNamespace(NS).withName("settings").get();
    assertThat(settings.getData()).containsEntry("mode", "one");
    for (var o : List.of(web, settings)) {
      assertThat(o.getMetadata().getLabels())
          .containsEntry("app.kubernetes.io/managed-by", "gitopshq")
          .containsEntry("gitopshq.dev/delivery", "direct")
          .containsEntry("gitopshq.dev/environment", ENV)
          .containsEntry("gitopshq.dev/tenant", TENANT);
      assertThat(o.getMetadata().getManagedFields())
          .extracting(ManagedFieldsEntry::getManager, ManagedFieldsEntry::getOperation)
          .contains(org.assertj.core.groups.Tuple.tuple(FIELD_MANAGER, "Apply"));
    }
    // The deployment ended only after the rollout: both replicas were available by then.
    assertThat(web.getStatus().getAvailableReplicas()).isEqualTo(2);

    List<String> timeline = details(done);
    assertThat(timeline)
        .anySatisfy(l -> assertThat(l).startsWith("applying directly on " + CLUSTER + " (" + ENV));
    assertThat(timeline)
        .contains("applied v1 ConfigMap " + NS + "/settings (acme): healthy, applied")
        .contains(
            "applied apps/v1 Deployment " + NS + "/web (acme): healthy, rolled out: 2/2 available");
    assertThat(actors(done)).contains("agent of " + CLUSTER);
    assertThat(agent.directAppliesExecuted()).isEqualTo(1);
  }

  @Test
  @Order(3)
  void aRepeatOfTheApplyIdIsAnsweredWithoutApplyingAgain() throws Exception {
    String applyId = firstApplyId();
    String web = resourceVersion("web");
    String settings = configMapVersion();
    // As if the hub had restarted before the agent's report was stored: the apply is parked again
    // and the gateway sends the same apply id once more. The agent answers from memory.
    repark(applyId);
    assertThat(agent.directAppliesExecuted()).isEqualTo(1);
    assertThat(resourceVersion("web")).isEqualTo(web);

    // After an agent restart the agent no longer remembers the apply and applies it again, which
    // changes nothing on the cluster: server-side apply of the same objects by the same manager.
    agent.close();
    agent =
        Agent.start(
            AgentConfig.fromEnv(agentEnv),
            new DirectDeployConfig(FIELD_MANAGER, ""),
            () -> agentClient);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    repark(applyId);
    assertThat(agent.directAppliesExecuted()).isEqualTo(1);
    assertThat(resourceVersion("web")).isEqualTo(web);
    assertThat(configMapVersion()).isEqualTo(settings);
  }

  static void repark(String applyId) {
    HubTestSupport.exec(
        "update direct_applies set dispatched_at = null,"
            + " dispatch_deadline = now() + interval '1 minute' where id = ?",
        applyId);
    // Its job queued again after its activity completed (no task token left, so nothing goes to
    // Temporal): the hub sends it again and records the agent's answer.
    HubTestSupport.exec(
        "update agent_jobs set state = 'queued', sent_at = null, reported_at = null,"
            + " deadline = now() + interval '1 minute' where ref = ?",
        applyId);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                HubTestSupport.count(
                        "select count(*) from agent_jobs where ref = ? and state = 'completed'"
                            + " and reported_at is not null",
                        applyId)
                    == 1);
  }

  static String resourceVersion(String deployment) {
    return admin
        .apps()
        .deployments()
        .inNamespace(NS)
        .withName(deployment)
        .get()
        .getMetadata()
        .getResourceVersion();
  }

  static String configMapVersion() {
    return admin
        .configMaps()
        .inNamespace(NS)
        .withName("settings")
        .get()
        .getMetadata()
        .getResourceVersion();
  }

  @Test
  @Order(4)
  void theNextReleasePrunesWhatItNoLongerHolds() {
    ok(
        hub.send(
            "PUT",
            "/api/v2/manifest-bundles/" + BUNDLE,
            OWNER_TOKEN,
            Map.of("files", Map.of("deployment.yaml", deployment("2")))));
    ReleaseEndToEndIT.Generator.awaitDelivered();
    JsonNode done = release("drop the settings");

    assertThat(admin.configMaps().inNamespace(NS).withName("settings").get()).isNull();
    Deployment web = admin.apps().deployments().inNamespace(NS).withName("web").get();
    assertThat(web.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("registry.example/web:2");
    assertThat(web.getStatus().getUpdatedReplicas()).isEqualTo(2);
    assertThat(details(done))
        .contains(
            "pruned v1 ConfigMap "
                + NS
                + "/settings (acme): healthy, deleted: the release no longer holds it");
  }

  @Test
  @Order(5)
  void aRollbackAppliesTheEarlierReleasesFilesTheSameWay() {
    Response r =
        hub.post(
            project("/rollbacks"),
            OWNER_TOKEN,
            Map.of("toRelease", 1, "scope", "all", "description", "back to one"));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    JsonNode done =
        ReleaseEndToEndIT.awaitStatus(r.body().get("deployment").get("id").asText(), "deployed");

    assertThat(admin.configMaps().inNamespace(NS).withName("settings").get().getData())
        .containsEntry("mode", "one");
    assertThat(
            admin
                .apps()
                .deployments()
                .inNamespace(NS)
                .withName("web")
                .get()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getImage())
        .isEqualTo("registry.example/web:1");
    assertThat(details(done))
        .contains("applied v1 ConfigMap " + NS + "/settings (acme): healthy, applied");
    // Since its restart: the repeat, the release that pruned, the rollback.
    assertThat(agent.directAppliesExecuted()).isEqualTo(3);
  }

  @Test
  @Order(6)
  void theClustersDirectDeployTabListsItsAppliesAndWhatTheyPlaced() {
    String clusterId = clusterId(CLUSTER);
    JsonNode tab = ok(hub.get("/api/v2/clusters/" + clusterId + "/direct-deploys", OWNER_TOKEN));
    assertThat(tab.get("capability").asBoolean()).isTrue();
    List<String> applies = new ArrayList<>();
    tab.get("applies")
        .forEach(
            a ->
                applies.add(
                    a.get("status").asText()
                        + " applied="
                        + a.get("applied").asInt()
                        + " pruned="
                        + a.get("pruned").asInt()));
    // Newest first: the rollback, the release that pruned, the first release.
    assertThat(applies)
        .containsExactly(
            "succeeded applied=2 pruned=0",
            "succeeded applied=1 pruned=1",
            "succeeded applied=2 pruned=0");
    List<String> objects = new ArrayList<>();
    tab.get("objects")
        .forEach(
            o ->
                objects.add(
                    o.get("tenant").asText()
                        + " "
                        + o.get("kind").asText()
                        + " "
                        + o.get("name").asText()));
    assertThat(objects).containsExactly("acme ConfigMap settings", "acme Deployment web");
    // The Bindings tab says what the newest apply did: no Argo CD or Flux watches a direct binding.
    JsonNode binding = null;
    for (JsonNode b :
        ok(hub.get("/api/v2/clusters/" + clusterId + "/bindings", OWNER_TOKEN)).get("items")) {
      if (b.get("tenant").asText().equals(TENANT) && b.get("environment").asText().equals(ENV)) {
        binding = b;
      }
    }
    assertThat(binding).as("the binding of %s in %s", TENANT, ENV).isNotNull();
    assertThat(binding.get("syncStatus").asText()).as(binding.toString()).isEqualTo("Synced");
    assertThat(binding.get("application").asText()).isEqualTo("direct apply");
    assertThat(binding.get("syncedRevision").asText())
        .isEqualTo(binding.get("lastDelivery").get("commit").asText());
    assertThat(binding.get("atLastDeployment").asBoolean()).isTrue();
    assertThat(
            ok(hub.get(
                    "/api/v2/clusters/" + clusterId(OFF_CLUSTER) + "/direct-deploys", OWNER_TOKEN))
                .get("capability")
                .asBoolean())
        .isFalse();
    assertThat(
            hub.get("/api/v2/clusters/" + UUID.randomUUID() + "/direct-deploys", OWNER_TOKEN)
                .status())
        .isEqualTo(404);
  }

  @Test
  @Order(7)
  void withoutTheCapabilityTheDeploymentIsRefusedWithNothingWritten() {
    ok(
        hub.send(
            "PUT",
            project("/environments/" + ENV),
            OWNER_TOKEN,
            Map.of(
                "namespacePattern",
                "dd" + SUFFIX + "-{{ .tenant }}",
                "deliveryMode",
                "direct",
                "clusters",
                List.of(Map.of("cluster", OFF_CLUSTER)))));
    ReleaseEndToEndIT.Generator.awaitDelivered();
    String head = ReleaseEndToEndIT.deployHead(ENV);
    long releases =
        HubTestSupport.count(
            "select count(*) from releases where project_id = ?", UUID.fromString(projectId));
    Response r = hub.post(project("/releases"), OWNER_TOKEN, Map.of("description", "off"));
    assertThat(r.status()).as(r.raw()).isEqualTo(409);
    assertThat(r.body().get("message").asText())
        .isEqualTo(
            "direct delivery needs the direct.deploy capability, which the agent of "
                + OFF_CLUSTER
                + " ("
                + ENV
                + ") has not announced (agent chart: capabilities.directDeploy=true with"
                + " rbac.profile=readwrite); nothing was deployed");
    // Nothing was created or written.
    assertThat(
            HubTestSupport.count(
                "select count(*) from releases where project_id = ?", UUID.fromString(projectId)))
        .isEqualTo(releases);
    assertThat(ReleaseEndToEndIT.deployHead(ENV)).isEqualTo(head);
  }

  /**
   * Issue 24 as a user of make run met it: a workload of the demo chart, whose templates name no
   * namespace, in an environment with no namespace pattern (the default, {@code {{ .tenant }}-{{
   * .environment }}}) delivered directly by an agent without directDeploy.defaultNamespace. It
   * lands in its tenant's namespace; a hand-made scale is a functional finding on spec.replicas
   * (never "0 drifted" from a comparison that failed); resolve-drift puts the release's replicas
   * back and the next check is clean.
   */
  @Test
  @Order(8)
  void aHelmWorkloadLandsInItsTenantNamespaceAndDriftIsFoundAndResolved() {
    Response up =
        new DeliveryFixtures(hub)
            .upload(OWNER_TOKEN, DeliveryFixtures.pack(DEMO_CHART), "application/gzip");
    assertThat(up.status()).as(up.raw()).isIn(201, 409);
    String helm =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "dd-demo-" + SUFFIX)))
            .get("id")
            .asText();
    // ReleaseEndToEndIT's helpers (generation, deployment status) follow this project from here.
    ReleaseEndToEndIT.projectId = helm;
    ReleaseEndToEndIT.tenant(HELM_TENANT);
    ok(
        hub.send(
            "PUT",
            ReleaseEndToEndIT.project("/environments/" + ENV),
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", CLUSTER, "deliveryMode", "direct")))));
    ok(
        hub.send(
            "PUT", ReleaseEndToEndIT.project("/tenants/" + HELM_TENANT), OWNER_TOKEN, Map.of()));
    ok(
        hub.post(
            ReleaseEndToEndIT.project("/workloads"),
            OWNER_TOKEN,
            Map.of(
                "name",
                "web",
                "chart",
                "demo-web",
                "version",
                "0.1.0",
                "values",
                Map.of("replicaCount", 2))));
    ReleaseEndToEndIT.Generator.awaitDelivered();

    JsonNode done = release(ReleaseEndToEndIT.project("/releases"), "the demo chart");
    Deployment web = admin.apps().deployments().inNamespace(HELM_NS).withName("web").get();
    assertThat(web).as("Deployment web in " + HELM_NS).isNotNull();
    assertThat(web.getStatus().getAvailableReplicas()).isEqualTo(2);
    assertThat(admin.services().inNamespace(HELM_NS).withName("web").get())
        .as("Service web in " + HELM_NS)
        .isNotNull();
    assertThat(details(done))
        .contains(
            "applied apps/v1 Deployment "
                + HELM_NS
                + "/web ("
                + HELM_TENANT
                + "): healthy, rolled out: 2/2 available");

    // kubectl scale deploy web --replicas=7, then a drift check of the cluster. Only this
    // project's environment is bound to the cluster now (the other one moved to OFF_CLUSTER).
    admin.apps().deployments().inNamespace(HELM_NS).withName("web").scale(7);
    DriftApi drift = new DriftApi(hub, clusterId(CLUSTER));
    JsonNode check = drift.check();
    assertThat(check.get("status").asText()).as(check.toString()).isEqualTo("completed");
    assertThat(check.get("summary").asText()).isEqualTo("2 objects: 1 drifted");
    assertThat(check.get("unknown").asInt()).isZero();
    JsonNode open = drift.list("?state=open&namespace=" + HELM_NS).get("items");
    assertThat(open).as(open.toString()).hasSize(1);
    JsonNode finding = drift.finding(open.get(0).get("id").asText());
    assertThat(finding.get("object").get("kind").asText()).isEqualTo("Deployment");
    assertThat(finding.get("object").get("name").asText()).isEqualTo("web");
    assertThat(finding.get("severity").asText()).isEqualTo("functional");
    assertThat(DriftApi.paths(finding)).containsExactly("spec.replicas");
    assertThat(finding.get("differences").get(0).get("desired").asText()).isEqualTo("2");
    assertThat(finding.get("differences").get(0).get("live").asText()).isEqualTo("7");

    // Resolve (resolve-drift is auto-approved by the default approval policy).
    JsonNode resolved =
        drift.awaitCommand(
            drift.resolve(finding.get("id").asText(), "scaled by hand"), "completed");
    assertThat(resolved.get("output").asText()).contains("re-applied with server-side apply");
    // Back at the release's replicas, still labelled as the direct delivery's (resolve applies
    // the object as the release did, so the next release does not refuse it as unmanaged).
    Deployment after = admin.apps().deployments().inNamespace(HELM_NS).withName("web").get();
    assertThat(after.getSpec().getReplicas()).isEqualTo(2);
    assertThat(after.getMetadata().getLabels())
        .containsEntry("gitopshq.dev/delivery", "direct")
        .containsEntry("gitopshq.dev/tenant", HELM_TENANT);
    JsonNode clean = drift.check();
    assertThat(clean.get("summary").asText())
        .as(clean.toString())
        .isEqualTo("2 objects: 0 drifted, all in sync");
    assertThat(clean.get("resolved").asInt()).isEqualTo(1);
    assertThat(drift.list("?state=open&namespace=" + HELM_NS).get("items")).isEmpty();
  }

  // ---- helpers ------------------------------------------------------------------------------

  static JsonNode release(String description) {
    return release(project("/releases"), description);
  }

  static JsonNode release(String releases, String description) {
    Response r = hub.post(releases, OWNER_TOKEN, Map.of("description", description));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    return ReleaseEndToEndIT.awaitStatus(r.body().get("deployment").get("id").asText(), "deployed");
  }

  static List<String> details(JsonNode deployment) {
    List<String> out = new ArrayList<>();
    deployment.get("timeline").forEach(e -> out.add(e.get("detail").asText()));
    return out;
  }

  static List<String> actors(JsonNode deployment) {
    List<String> out = new ArrayList<>();
    deployment.get("timeline").forEach(e -> out.add(e.get("actor").asText()));
    return out;
  }

  static String clusterId(String name) {
    for (JsonNode c : ok(hub.get("/api/v2/clusters", OWNER_TOKEN)).get("items")) {
      if (c.get("name").asText().equals(name)) {
        return c.get("id").asText();
      }
    }
    throw new AssertionError("no cluster " + name);
  }

  static String firstApplyId() {
    try (var c = HubTestSupport.db();
        var ps =
            c.prepareStatement(
                "select id from direct_applies where cluster_id = (select id from clusters where"
                    + " name = ?) order by created_at limit 1")) {
      ps.setString(1, CLUSTER);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static String project(String path) {
    return "/api/v2/projects/" + projectId + path;
  }

  static JsonNode ok(Response r) {
    assertThat(r.status()).as(r.raw()).isBetween(200, 299);
    return r.body();
  }
}

package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.release.AdapterStatus;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.inspect.ArgoApplicationsReader;
import dev.gitopshq.agent.v1.ListApplications;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The contract GitOpsHQ relies on when it hands delivery to Argo CD, the twin of {@link
 * FluxDeliveryIT}, on the real API server with Argo CD's real repo-server and
 * application-controller (v3.6.1, {@link RealKube#withArgoCd()}): a repository Secret with a deploy
 * token for the hub's Git endpoint, an AppProject that allows that repository and only the test
 * namespace, and an Application on {@code deploy/<env>} at {@code <cluster>/<tenant>} with
 * automated sync (prune, selfHeal) bring a Deployment into the namespace. Argo CD reports Synced
 * and Healthy at the branch's commit, the objects carry its tracking annotation, a new commit is
 * picked up within seconds of the refresh annotation though the periodic refresh is an hour away, a
 * hand-made change is healed, a destination the AppProject does not allow is refused and without
 * the token the fetch fails and the status says so. Every status here is written by Argo CD, none
 * by the test. Last, the hub's own reading: an agent with {@code argocd.read} lists the real
 * Application and the cluster's Bindings view says Synced at the deploy branch's commit.
 */
@Tag("e2e")
class ArgoDeliveryIT {
  static final String S = UUID.randomUUID().toString().substring(0, 6);
  static final String NS = "argo-" + S;
  static final String ENV = "argoenv" + S;
  static final String CLUSTER = "argo-" + S;
  static final String TENANT = "argo-t" + S;
  static final String PATH = CLUSTER + "/" + TENANT;
  static final String IN_CLUSTER = "https://kubernetes.default.svc";
  static final String REFRESH = "argocd.argoproj.io/refresh";
  static final String TRACKING_ID = "argocd.argoproj.io/tracking-id";

  static RealKube kube;
  static KubernetesClient admin;
  static HubTestSupport hub;
  static String argo;

  static final String DEPLOYMENT =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
        labels:
          app: web
      spec:
        replicas: %d
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
                image: registry.example/web:%s
      """;

  @BeforeAll
  static void start() throws Exception {
    kube = RealKube.shared().withArgoCd();
    argo = kube.argoCdNamespace();
    admin = kube.adminClient();
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
    // The clone URLs the hub hands out name the port Argo CD reaches it on.
    int port = HubTestSupport.freePort();
    hub =
        new HubTestSupport()
            .property("server.port", port)
            .property("gitopshq.git.public-url", "http://127.0.0.1:" + port)
            .start();
  }

  @AfterAll
  static void stop() {
    if (admin != null) {
      // Argo CD's objects live in its own namespace: remove this test's before its namespace.
      applications().withLabel("gitopshq.test", S).delete();
      appProjects().withLabel("gitopshq.test", S).delete();
      admin.secrets().inNamespace(argo).withLabel("gitopshq.test", S).delete();
      admin.namespaces().withName(NS).delete();
      admin.close();
    }
    if (hub != null) {
      hub.close();
    }
  }

  @Test
  void anApplicationOnTheHubsDeployBranchSyncsEachCommitAndTheHubReadsIt() throws Exception {
    String projectId =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "argo-" + S)), 201)
            .get("id")
            .asText();
    String cloneUrl = cloneUrl(projectId);
    String token =
        ok(
                hub.post(
                    "/api/v2/projects/" + projectId + "/deploy-tokens",
                    OWNER_TOKEN,
                    Map.of("name", "argocd")),
                201)
            .get("token")
            .asText();
    String branch = ProjectRepos.deployBranch(ENV);
    CommitResult first = commit(projectId, branch, 2, "1", "Deploy release #1");

    admin
        .secrets()
        .inNamespace(argo)
        .resource(repositorySecret("repo-" + S, cloneUrl, token))
        .create();
    appProjects().resource(appProject("p-" + S, List.of(cloneUrl))).create();
    String app = "web-" + S;
    applications().resource(application(app, "p-" + S, cloneUrl, branch, NS)).create();

    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              GenericKubernetesResource a = applications().withName(app).get();
              assertThat(text(a, "status", "sync", "status"))
                  .as(Serialization.asYaml(status(a)))
                  .isEqualTo("Synced");
              assertThat(text(a, "status", "sync", "revision")).isEqualTo(first.commitName());
              assertThat(text(a, "status", "health", "status")).isEqualTo("Healthy");
              // The automated sync's operation ends after the objects are Synced and Healthy.
              assertThat(text(a, "status", "operationState", "phase")).isEqualTo("Succeeded");
            });
    GenericKubernetesResource synced = applications().withName(app).get();
    assertThat(text(synced, "status", "operationState", "syncResult", "revision"))
        .isEqualTo(first.commitName());
    System.out.println("argocd: application status " + Serialization.asJson(status(synced)));

    Deployment web = admin.apps().deployments().inNamespace(NS).withName("web").get();
    assertThat(web.getSpec().getReplicas()).isEqualTo(2);
    assertThat(web.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage())
        .isEqualTo("registry.example/web:1");
    assertThat(web.getMetadata().getAnnotations())
        .containsEntry(TRACKING_ID, app + ":apps/Deployment:" + NS + "/web");

    // The agent's reader (as the agent runs it) and the hub's matching, on what Argo CD wrote.
    AdapterStatus adapter =
        AdapterStatus.find(
                cloneUrl,
                branch,
                PATH,
                new ArgoApplicationsReader(() -> admin, "")
                    .list(ListApplications.newBuilder().setRequestId("it").build())
                    .getApplicationsList(),
                List.of())
            .orElseThrow();
    assertThat(adapter.deliverer()).isEqualTo(argo + "/" + app);
    assertThat(adapter.runs(first.commitName())).as(adapter.toString()).isTrue();

    // A new commit, then the refresh annotation: the periodic refresh is an hour away, so only
    // the request explains a quick pickup.
    CommitResult second = commit(projectId, branch, 3, "2", "Deploy release #2");
    Instant requested = Instant.now();
    applications()
        .withName(app)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(
                Map.of("metadata", Map.of("annotations", Map.of(REFRESH, "normal")))));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              GenericKubernetesResource a = applications().withName(app).get();
              assertThat(text(a, "status", "sync", "revision")).isEqualTo(second.commitName());
              assertThat(text(a, "status", "sync", "status")).isEqualTo("Synced");
              assertThat(
                      admin
                          .apps()
                          .deployments()
                          .inNamespace(NS)
                          .withName("web")
                          .get()
                          .getSpec()
                          .getReplicas())
                  .isEqualTo(3);
            });
    Duration pickup = Duration.between(requested, Instant.now());
    System.out.println(
        "argocd: new commit applied " + pickup.toMillis() + " ms after the refresh request");
    // Argo CD removes the annotation once it has refreshed.
    assertThat(applications().withName(app).get().getMetadata().getAnnotations())
        .doesNotContainKey(REFRESH);
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
                .getFirst()
                .getImage())
        .isEqualTo("registry.example/web:2");

    // selfHeal: a hand-made scale is put back to the branch's replicas.
    admin.apps().deployments().inNamespace(NS).withName("web").scale(5);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () ->
                assertThat(
                        admin
                            .apps()
                            .deployments()
                            .inNamespace(NS)
                            .withName("web")
                            .get()
                            .getSpec()
                            .getReplicas())
                    .isEqualTo(3));

    hubReadsTheApplication(projectId, second.commitName(), app);
  }

  /**
   * The Bindings view of the cluster, through a real agent with argocd.read, on Argo CD's words.
   */
  void hubReadsTheApplication(String projectId, String commit, String app) throws Exception {
    environment(ENV);
    Response tenant = hub.post("/api/v2/tenants", OWNER_TOKEN, Map.of("name", TENANT));
    assertThat(tenant.status()).as(tenant.raw()).isIn(201, 409);
    JsonNode created =
        ok(
            hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", CLUSTER, "environment", ENV)),
            201);
    String clusterId = created.get("cluster").get("id").asText();
    ok(
        hub.send(
            "PUT",
            "/api/v2/projects/" + projectId + "/environments/" + ENV,
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", CLUSTER)))),
        200);
    ok(
        hub.send(
            "PUT", "/api/v2/projects/" + projectId + "/tenants/" + TENANT, OWNER_TOKEN, Map.of()),
        200);

    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(
        AgentConfig.AGENT_TOKEN_PATH,
        Files.createTempDirectory("argo").resolve("a.json").toString());
    env.put(AgentConfig.CLUSTER_NAME, CLUSTER);
    env.put(AgentConfig.CAPABILITIES, "observe,argocd.read");
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());
    try (KubernetesClient agentClient = kube.adminClient();
        Agent agent = Agent.start(AgentConfig.fromEnv(env), () -> agentClient)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                JsonNode items =
                    ok(hub.get("/api/v2/clusters/" + clusterId + "/bindings", OWNER_TOKEN), 200)
                        .get("items");
                assertThat(items).hasSize(1);
                JsonNode b = items.get(0);
                assertThat(b.get("tenant").asText()).isEqualTo(TENANT);
                assertThat(b.get("environment").asText()).isEqualTo(ENV);
                assertThat(b.path("syncStatus").asText()).as(b.toString()).isEqualTo("Synced");
                assertThat(b.path("application").asText()).isEqualTo(argo + "/" + app);
                assertThat(b.path("syncedRevision").asText()).isEqualTo(commit);
              });
    }
  }

  @Test
  void aDestinationTheAppProjectDoesNotAllowIsRefused() {
    String projectId =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "argo-fence-" + S)), 201)
            .get("id")
            .asText();
    String cloneUrl = cloneUrl(projectId);
    String token =
        ok(
                hub.post(
                    "/api/v2/projects/" + projectId + "/deploy-tokens",
                    OWNER_TOKEN,
                    Map.of("name", "argocd")),
                201)
            .get("token")
            .asText();
    String branch = ProjectRepos.deployBranch(ENV);
    commit(projectId, branch, 1, "1", "Deploy release #1");
    admin
        .secrets()
        .inNamespace(argo)
        .resource(repositorySecret("repo-fence-" + S, cloneUrl, token))
        .create();
    appProjects().resource(appProject("fence-" + S, List.of(cloneUrl))).create();
    String other = "argo-other-" + S;
    applications()
        .resource(application("fence-" + S, "fence-" + S, cloneUrl, branch, other))
        .create();

    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              GenericKubernetesResource a = applications().withName("fence-" + S).get();
              assertThat(conditionMessage(a, "InvalidSpecError"))
                  .as(Serialization.asYaml(status(a)))
                  .contains("do not match any of the allowed destinations in project")
                  .contains(other);
              assertThat(text(a, "status", "sync", "status")).isEqualTo("Unknown");
            });
    assertThat(admin.namespaces().withName(other).get()).isNull();
  }

  @Test
  void withoutTheTokenTheFetchFailsAndTheStatusSaysSo() {
    String projectId =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "argo-anon-" + S)), 201)
            .get("id")
            .asText();
    String cloneUrl = cloneUrl(projectId);
    String branch = ProjectRepos.deployBranch(ENV);
    commit(projectId, branch, 1, "1", "Deploy release #1");
    appProjects().resource(appProject("anon-" + S, List.of(cloneUrl))).create();
    applications().resource(application("anon-" + S, "anon-" + S, cloneUrl, branch, NS)).create();

    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              GenericKubernetesResource a = applications().withName("anon-" + S).get();
              assertThat(conditionMessage(a, "ComparisonError"))
                  .as(Serialization.asYaml(status(a)))
                  .containsIgnoringCase("auth");
              assertThat(text(a, "status", "sync", "status")).isEqualTo("Unknown");
              // Argo CD resolved no commit: it keeps the branch name as the revision.
              assertThat(text(a, "status", "sync", "revision")).doesNotMatch("[0-9a-f]{40}");
            });
  }

  // ---- fixtures ----------------------------------------------------------------------------

  static String cloneUrl(String projectId) {
    return ok(hub.get("/api/v2/projects/" + projectId, OWNER_TOKEN), 200)
        .get("repository")
        .get("cloneUrl")
        .asText();
  }

  /** A commit on the deploy branch as the hub lays it out: {@code <cluster>/<tenant>/<service>}. */
  static CommitResult commit(
      String projectId, String branch, int replicas, String tag, String msg) {
    UUID org = UUID.fromString(orgId());
    return hub.bean(ProjectRepos.class)
        .commit(
            org,
            UUID.fromString(projectId),
            branch,
            null,
            List.of(
                TreeEdit.file(
                    PATH + "/web/deployment.yaml",
                    DEPLOYMENT.formatted(replicas, tag).getBytes(UTF_8))),
            Ident.HUB,
            msg);
  }

  /** Argo CD's repository Secret: its label, the URL and the deploy token as basic auth. */
  static io.fabric8.kubernetes.api.model.Secret repositorySecret(
      String name, String url, String token) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("argocd.argoproj.io/secret-type", "repository")
        .addToLabels("gitopshq.test", S)
        .endMetadata()
        .withStringData(Map.of("type", "git", "url", url, "username", "argocd", "password", token))
        .build();
  }

  static GenericKubernetesResource appProject(String name, List<String> repos) {
    return Serialization.unmarshal(
        """
        apiVersion: argoproj.io/v1alpha1
        kind: AppProject
        metadata:
          name: %s
          namespace: %s
          labels:
            gitopshq.test: %s
        spec:
          sourceRepos: %s
          destinations:
            - server: %s
              namespace: %s
        """
            .formatted(name, argo, S, Serialization.asJson(repos), IN_CLUSTER, NS),
        GenericKubernetesResource.class);
  }

  static GenericKubernetesResource application(
      String name, String project, String url, String branch, String namespace) {
    return Serialization.unmarshal(
        """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata:
          name: %s
          namespace: %s
          labels:
            gitopshq.test: %s
        spec:
          project: %s
          source:
            repoURL: %s
            targetRevision: %s
            path: %s
            directory:
              recurse: true
          destination:
            server: %s
            namespace: %s
          syncPolicy:
            automated:
              prune: true
              selfHeal: true
        """
            .formatted(name, argo, S, project, url, branch, PATH, IN_CLUSTER, namespace),
        GenericKubernetesResource.class);
  }

  static NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      applications() {
    return admin
        .genericKubernetesResources("argoproj.io/v1alpha1", "Application")
        .inNamespace(argo);
  }

  static NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      appProjects() {
    return admin.genericKubernetesResources("argoproj.io/v1alpha1", "AppProject").inNamespace(argo);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> status(GenericKubernetesResource r) {
    Object status = r == null ? null : r.getAdditionalProperties().get("status");
    return status == null ? Map.of() : (Map<String, Object>) status;
  }

  static String text(GenericKubernetesResource r, String... path) {
    Object cur = r == null ? null : r.getAdditionalProperties();
    for (String p : path) {
      if (!(cur instanceof Map<?, ?> m)) {
        return "";
      }
      cur = m.get(p);
    }
    return cur == null ? "" : cur.toString();
  }

  @SuppressWarnings("unchecked")
  static String conditionMessage(GenericKubernetesResource r, String type) {
    Object conditions = status(r).get("conditions");
    if (conditions == null) {
      return "";
    }
    return ((List<Map<String, Object>>) conditions)
        .stream()
            .filter(c -> type.equals(c.get("type")))
            .map(c -> String.valueOf(c.get("message")))
            .findFirst()
            .orElse("");
  }

  static void environment(String name) {
    UUID org = UUID.fromString(orgId());
    HubTestSupport.exec(
        "insert into environments (id, org_id, name, position, created_at)"
            + " select ?, ?, ?, coalesce(max(position), 0) + 1, now() from environments where org_id = ?"
            + " on conflict (org_id, name) do nothing",
        UUID.randomUUID(),
        org,
        name,
        org);
  }

  static String orgId() {
    try (var c = HubTestSupport.db();
        var rs =
            c.createStatement()
                .executeQuery("select id from organizations where slug = 'default'")) {
      rs.next();
      return rs.getString(1);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static JsonNode ok(Response r, int status) {
    assertThat(r.status()).as(r.raw()).isEqualTo(status);
    return r.body();
  }
}

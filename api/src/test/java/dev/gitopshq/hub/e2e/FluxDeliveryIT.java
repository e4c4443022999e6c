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
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The contract GitOpsHQ relies on when it hands delivery to Flux, on the real API server with the
 * real source-controller and kustomize-controller (v1.9.6, {@link RealKube#withFlux()}): a
 * GitRepository on the hub's Git endpoint, authenticated with a deploy token in a {@code
 * basic-auth} Secret, and a Kustomization on it bring a Deployment into a namespace; the
 * Kustomization reports Ready with {@code lastAppliedRevision} equal to the deploy branch's commit,
 * and the objects carry kustomize-controller's field manager. A new commit is picked up within
 * seconds once the GitRepository is annotated with {@code reconcile.fluxcd.io/requestedAt}, though
 * both intervals are ten minutes. Without the token the hub refuses the fetch and the GitRepository
 * says so. Every status here is written by Flux, none by the test.
 */
@Tag("e2e")
class FluxDeliveryIT {
  static final String S = UUID.randomUUID().toString().substring(0, 6);
  static final String NS = "flux-" + S;
  static final String ENV = "fluxenv" + S;
  static final String DIR = "demo/acme/web";
  static final String REQUESTED_AT = "reconcile.fluxcd.io/requestedAt";

  static RealKube kube;
  static KubernetesClient admin;
  static HubTestSupport hub;

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
    kube = RealKube.shared().withFlux();
    admin = kube.adminClient();
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
    // The clone URLs the hub hands out name the port Flux reaches it on.
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
      // Flux's finalizers need the controllers: delete the objects while they run.
      admin.namespaces().withName(NS).delete();
      admin.close();
    }
    if (hub != null) {
      hub.close();
    }
  }

  @Test
  void aGitRepositoryOnTheHubAndAKustomizationDeliverEachCommitOfTheDeployBranch() {
    JsonNode project =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "flux-" + S)), 201);
    String projectId = project.get("id").asText();
    String cloneUrl =
        ok(hub.get("/api/v2/projects/" + projectId, OWNER_TOKEN), 200)
            .get("repository")
            .get("cloneUrl")
            .asText();
    String token =
        ok(
                hub.post(
                    "/api/v2/projects/" + projectId + "/deploy-tokens",
                    OWNER_TOKEN,
                    Map.of("name", "flux")),
                201)
            .get("token")
            .asText();
    String branch = ProjectRepos.deployBranch(ENV);
    CommitResult first = commit(projectId, branch, 2, "1", "Deploy release #1");

    admin
        .secrets()
        .inNamespace(NS)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("hub-deploy-token")
                .endMetadata()
                .withType("kubernetes.io/basic-auth")
                .withStringData(Map.of("username", "flux", "password", token))
                .build())
        .create();
    gitRepositories().resource(gitRepository("hub", cloneUrl, branch, "hub-deploy-token")).create();
    kustomizations().resource(kustomization("web", "hub")).create();

    String firstRevision = branch + "@sha1:" + first.commitName();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              GenericKubernetesResource k = kustomizations().withName("web").get();
              assertThat(condition(k, "Ready"))
                  .as(Serialization.asYaml(status(k)))
                  .isEqualTo("True");
              assertThat(status(k).get("lastAppliedRevision")).isEqualTo(firstRevision);
            });
    GenericKubernetesResource source = gitRepositories().withName("hub").get();
    assertThat(condition(source, "Ready")).isEqualTo("True");
    @SuppressWarnings("unchecked")
    Map<String, Object> artifact = (Map<String, Object>) status(source).get("artifact");
    assertThat(artifact.get("revision")).isEqualTo(firstRevision);
    assertThat((String) artifact.get("url")).startsWith(kube.fluxStorageUrl() + "/");

    Deployment web = admin.apps().deployments().inNamespace(NS).withName("web").get();
    assertThat(web.getSpec().getReplicas()).isEqualTo(2);
    assertThat(web.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage())
        .isEqualTo("registry.example/web:1");
    assertThat(web.getMetadata().getManagedFields())
        .extracting(ManagedFieldsEntry::getManager)
        .contains("kustomize-controller");
    assertThat(web.getMetadata().getLabels())
        .containsEntry("kustomize.toolkit.fluxcd.io/name", "web")
        .containsEntry("kustomize.toolkit.fluxcd.io/namespace", NS);

    // A new commit, then the annotation: both intervals are ten minutes, so only the request
    // explains a quick pickup.
    CommitResult second = commit(projectId, branch, 3, "2", "Deploy release #2");
    String secondRevision = branch + "@sha1:" + second.commitName();
    Instant requested = Instant.now();
    gitRepositories()
        .withName("hub")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(
                Map.of(
                    "metadata",
                    Map.of("annotations", Map.of(REQUESTED_AT, requested.toString())))));
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () ->
                assertThat(
                        status(kustomizations().withName("web").get()).get("lastAppliedRevision"))
                    .isEqualTo(secondRevision));
    Duration pickup = Duration.between(requested, Instant.now());
    System.out.println("flux: new commit applied " + pickup.toMillis() + " ms after the request");
    assertThat(status(gitRepositories().withName("hub").get()).get("lastHandledReconcileAt"))
        .isEqualTo(requested.toString());
    Deployment updated = admin.apps().deployments().inNamespace(NS).withName("web").get();
    assertThat(updated.getSpec().getReplicas()).isEqualTo(3);
    assertThat(updated.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage())
        .isEqualTo("registry.example/web:2");

    // The same repository without the token: the hub asks for credentials, Flux reports it.
    gitRepositories().resource(gitRepository("anonymous", cloneUrl, branch, null)).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              GenericKubernetesResource anonymous = gitRepositories().withName("anonymous").get();
              assertThat(condition(anonymous, "Ready")).isEqualTo("False");
              assertThat(conditionMessage(anonymous, "Ready")).containsIgnoringCase("auth");
              assertThat(status(anonymous).get("artifact")).isNull();
            });
  }

  // ---- fixtures ----------------------------------------------------------------------------

  /** A commit on the deploy branch as the hub makes one: a Deployment and its kustomization. */
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
                    DIR + "/deployment.yaml", DEPLOYMENT.formatted(replicas, tag).getBytes(UTF_8)),
                TreeEdit.file(
                    DIR + "/kustomization.yaml", "resources: [deployment.yaml]\n".getBytes(UTF_8))),
            Ident.HUB,
            msg);
  }

  static GenericKubernetesResource gitRepository(
      String name, String url, String branch, String secret) {
    String auth = secret == null ? "" : "  secretRef:\n    name: " + secret + "\n";
    return Serialization.unmarshal(
        """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata:
          name: %s
          namespace: %s
        spec:
          interval: 10m
          timeout: 20s
          url: %s
          ref:
            branch: %s
        %s"""
            .formatted(name, NS, url, branch, auth),
        GenericKubernetesResource.class);
  }

  static GenericKubernetesResource kustomization(String name, String source) {
    return Serialization.unmarshal(
        """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: %s
          namespace: %s
        spec:
          interval: 10m
          path: ./%s
          prune: true
          targetNamespace: %s
          sourceRef:
            kind: GitRepository
            name: %s
        """
            .formatted(name, NS, DIR, NS, source),
        GenericKubernetesResource.class);
  }

  static NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      gitRepositories() {
    return admin
        .genericKubernetesResources("source.toolkit.fluxcd.io/v1", "GitRepository")
        .inNamespace(NS);
  }

  static NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      kustomizations() {
    return admin
        .genericKubernetesResources("kustomize.toolkit.fluxcd.io/v1", "Kustomization")
        .inNamespace(NS);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> status(GenericKubernetesResource r) {
    Object status = r == null ? null : r.getAdditionalProperties().get("status");
    return status == null ? Map.of() : (Map<String, Object>) status;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> conditionOf(GenericKubernetesResource r, String type) {
    Object conditions = status(r).get("conditions");
    if (conditions == null) {
      return Map.of();
    }
    return ((List<Map<String, Object>>) conditions)
        .stream().filter(c -> type.equals(c.get("type"))).findFirst().orElse(Map.of());
  }

  static String condition(GenericKubernetesResource r, String type) {
    return (String) conditionOf(r, type).get("status");
  }

  static String conditionMessage(GenericKubernetesResource r, String type) {
    return String.valueOf(conditionOf(r, type).get("message"));
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

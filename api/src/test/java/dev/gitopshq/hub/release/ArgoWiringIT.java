package dev.gitopshq.hub.release;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.v1.AdapterNames;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
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
 * The Argo CD twin of {@link AdapterWiringIT}, on the real repo-server and application-controller
 * (v3.6.1, {@link RealKube#withArgoCd()}): a cluster bound in {@code argocd} mode gets from its
 * agent the repository Secret, an AppProject limited to the tenant's namespace and the fence's
 * kinds, and an Application in it; the deployment ends when Argo CD reports the commit Synced and
 * Healthy; unbinding removes them. Every status here is Argo CD's own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class ArgoWiringIT {
  static final String S = UUID.randomUUID().toString().substring(0, 6);
  static final String ENV = "ax-dev";
  static final String CLUSTER = "ax-" + S;
  static final String TENANT = "acme";
  static final String NS = "ax" + S + "-acme";
  static final String PROJECT = "ax-shop-" + S;
  static final String BUNDLE = "ax-app-" + S;

  static RealKube kube;
  static KubernetesClient admin;
  static AdapterStack stack;
  static HubTestSupport hub;
  static String clusterId;

  @BeforeAll
  static void start() throws Exception {
    kube = RealKube.shared().withArgoCd();
    admin = kube.adminClient();
    stack =
        AdapterStack.start(
            kube, ENV, TENANT, CLUSTER, PROJECT, BUNDLE, "observe,argocd.read,adapter.wire");
    hub = stack.hub;
    clusterId = stack.clusterId;
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
    if (admin != null) {
      admin.namespaces().withName(NS).delete();
      admin.close();
    }
  }

  @Test
  @Order(1)
  void bindingAClusterInArgoModeAndReleasingIsAllItTakesAndTheDeploymentEndsWhenArgoRunsIt() {
    admin
        .namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName(NS)
                .endMetadata()
                .build())
        .serverSideApply();
    AdapterStack.ok(
        hub.send(
            "PUT",
            stack.project("/environments/" + ENV),
            OWNER_TOKEN,
            Map.of(
                "namespacePattern",
                "ax" + S + "-{{ .tenant }}",
                "clusters",
                List.of(Map.of("cluster", CLUSTER, "deliveryMode", "argocd")))));
    AdapterStack.ok(hub.send("PUT", stack.project("/tenants/" + TENANT), OWNER_TOKEN, Map.of()));
    AdapterStack.ok(
        hub.post(
            stack.project("/bindings"),
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

    Response r = hub.post(stack.project("/releases"), OWNER_TOKEN, Map.of("description", "first"));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    String deploymentId = r.body().get("deployment").get("id").asText();
    JsonNode done = stack.awaitStatus(deploymentId, "deployed", Duration.ofMinutes(3));

    String name = AdapterNames.name(PROJECT, ENV, TENANT);
    Deployment web = admin.apps().deployments().inNamespace(NS).withName("web").get();
    assertThat(web).isNotNull();
    assertThat(web.getMetadata().getManagedFields())
        .extracting(ManagedFieldsEntry::getManager)
        .contains("argocd-controller");
    GenericKubernetesResource app =
        admin
            .genericKubernetesResources("argoproj.io/v1alpha1", "Application")
            .inNamespace("argocd")
            .withName(name)
            .get();
    assertThat(AdapterStack.spec(app)).containsEntry("project", name);
    @SuppressWarnings("unchecked")
    Map<String, Object> sync = (Map<String, Object>) AdapterStack.status(app).get("sync");
    String commit = done.get("commits").get(ENV).asText();
    assertThat(sync).containsEntry("status", "Synced").containsEntry("revision", commit);
    assertThat(done.toString()).contains(CLUSTER).contains("argocd/" + name);

    // The AppProject allows this tenant's namespace and nothing cluster-scoped.
    GenericKubernetesResource appProject =
        admin
            .genericKubernetesResources("argoproj.io/v1alpha1", "AppProject")
            .inNamespace("argocd")
            .withName(name)
            .get();
    assertThat(AdapterStack.spec(appProject).get("destinations"))
        .isEqualTo(List.of(Map.of("server", "https://kubernetes.default.svc", "namespace", NS)));
    assertThat(AdapterStack.spec(appProject).get("namespaceResourceBlacklist").toString())
        .contains("rbac.authorization.k8s.io");
    assertThat(
            admin
                .secrets()
                .inNamespace("argocd")
                .withName(AdapterNames.credential(PROJECT, "argocd"))
                .get()
                .getMetadata()
                .getLabels())
        .containsEntry("argocd.argoproj.io/secret-type", "repository");

    JsonNode adapters =
        AdapterStack.ok(hub.get("/api/v2/clusters/" + clusterId + "/adapters", OWNER_TOKEN));
    JsonNode binding = adapters.get("bindings").get(0);
    assertThat(binding.get("outcome").asText()).as(adapters.toString()).isEqualTo("wired");
    assertThat(binding.get("adapter").asText()).isEqualTo("argocd");
  }

  @Test
  @Order(2)
  void unbindingTheClusterRemovesTheApplicationAndItsProject() {
    AdapterStack.ok(
        hub.send(
            "PUT",
            stack.project("/environments/" + ENV),
            OWNER_TOKEN,
            Map.of("namespacePattern", "ax" + S + "-{{ .tenant }}", "clusters", List.of())));
    String name = AdapterNames.name(PROJECT, ENV, TENANT);
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertThat(
                      admin
                          .genericKubernetesResources("argoproj.io/v1alpha1", "Application")
                          .inNamespace("argocd")
                          .withName(name)
                          .get())
                  .isNull();
              assertThat(
                      admin
                          .genericKubernetesResources("argoproj.io/v1alpha1", "AppProject")
                          .inNamespace("argocd")
                          .withName(name)
                          .get())
                  .isNull();
            });
    // Argo CD's resources finalizer removed what the Application had delivered.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(admin.apps().deployments().inNamespace(NS).withName("web").get())
                    .isNull());
  }
}

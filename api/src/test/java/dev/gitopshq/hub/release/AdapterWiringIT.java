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
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
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
 * Issue 24 items 5 and 6, end to end on the real API server with the real Flux controllers: a
 * cluster whose agent has adapter.wire is bound in {@code flux} mode, and registering it and
 * binding it is all the user does. A release commits the deploy branch; the hub has the agent
 * create the GitRepository (with a deploy token the hub issued, stored only in the cluster's
 * Secret), the tenant's ServiceAccount with RBAC derived from the project's fence, and the
 * Kustomization that runs as it; Flux applies the objects; the deployment is {@code deployed} only
 * once Flux reports the commit applied and healthy. Unbinding removes the adapter objects (and with
 * them, by Flux's prune, the delivered objects) and revokes the token. Every status here is Flux's
 * own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class AdapterWiringIT {
  static final String S = UUID.randomUUID().toString().substring(0, 6);
  static final String ENV = "fx-dev";
  static final String CLUSTER = "fx-" + S;
  static final String TENANT = "acme";
  static final String NS = "fx" + S + "-acme";
  static final String PROJECT = "fx-shop-" + S;
  static final String BUNDLE = "fx-app-" + S;

  static RealKube kube;
  static KubernetesClient admin;
  static AdapterStack stack;
  static HubTestSupport hub;
  static String clusterId;

  @BeforeAll
  static void start() throws Exception {
    kube = RealKube.shared().withFlux();
    admin = kube.adminClient();
    stack = AdapterStack.start(kube, ENV, TENANT, CLUSTER, PROJECT, BUNDLE, "observe,adapter.wire");
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
  void bindingAClusterInFluxModeAndReleasingIsAllItTakesAndTheDeploymentEndsWhenFluxRunsIt() {
    AdapterStack.ok(
        hub.send(
            "PUT",
            stack.project("/environments/" + ENV),
            OWNER_TOKEN,
            Map.of(
                "namespacePattern",
                "fx" + S + "-{{ .tenant }}",
                "createNamespace",
                true,
                "clusters",
                List.of(Map.of("cluster", CLUSTER, "deliveryMode", "flux")))));
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
    // The release creates the tenant's Namespace, a cluster-scoped object: the shipped policy asks
    // for an approval in every environment. Someone else approves.
    String approver = ReleaseEndToEndIT.token("admin");
    JsonNode item =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> ReleaseEndToEndIT.inboxItem(approver, deploymentId), i -> i != null);
    AdapterStack.ok(
        hub.post(
            "/api/v2/approvals/" + item.get("id").asText() + "/approve",
            approver,
            Map.of("comment", "the namespace is the tenant's")));
    JsonNode done = stack.awaitStatus(deploymentId, "deployed", Duration.ofMinutes(3));

    // Flux delivered it: the object is in the tenant's namespace, applied by kustomize-controller
    // impersonating the tenant's ServiceAccount.
    String name = AdapterNames.name(PROJECT, ENV, TENANT);
    Deployment web = admin.apps().deployments().inNamespace(NS).withName("web").get();
    assertThat(web).isNotNull();
    assertThat(web.getMetadata().getManagedFields())
        .extracting(ManagedFieldsEntry::getManager)
        .contains("kustomize-controller");
    GenericKubernetesResource ks =
        admin
            .genericKubernetesResources("kustomize.toolkit.fluxcd.io/v1", "Kustomization")
            .inNamespace("flux-system")
            .withName(name)
            .get();
    assertThat(AdapterStack.spec(ks))
        .containsEntry("serviceAccountName", name)
        .containsEntry("prune", true);
    String commit = done.get("commits").get(ENV).asText();
    assertThat(String.valueOf(AdapterStack.status(ks).get("lastAppliedRevision"))).endsWith(commit);

    // The deployment records what the cluster ran.
    assertThat(done.toString()).contains(CLUSTER).contains("flux:flux-system/" + name);

    // The deploy token lives in the cluster's Secret and in the hub only as a hash.
    JsonNode tokens = AdapterStack.ok(hub.get(stack.project("/deploy-tokens"), OWNER_TOKEN));
    assertThat(tokens.toString()).contains("adapter flux of cluster " + CLUSTER);
    assertThat(
            admin
                .secrets()
                .inNamespace("flux-system")
                .withName(AdapterNames.credential(PROJECT, "flux"))
                .get()
                .getType())
        .isEqualTo("kubernetes.io/basic-auth");

    // What the hub shows operators.
    JsonNode adapters =
        AdapterStack.ok(hub.get("/api/v2/clusters/" + clusterId + "/adapters", OWNER_TOKEN));
    assertThat(adapters.get("adapter").asText()).isEqualTo("auto");
    JsonNode binding = adapters.get("bindings").get(0);
    assertThat(binding.get("outcome").asText()).as(adapters.toString()).isEqualTo("wired");
    assertThat(binding.get("tenant").asText()).isEqualTo(TENANT);
    assertThat(binding.get("objects").toString())
        .contains("\"kind\":\"Kustomization\"")
        .contains("\"kind\":\"GitRepository\"")
        .contains("\"kind\":\"RoleBinding\"");
  }

  @Test
  @Order(2)
  void theTenantsServiceAccountMayDoOnlyWhatTheFenceAllowsAndOnlyInItsNamespace() {
    String sa = "system:serviceaccount:flux-system:" + AdapterNames.name(PROJECT, ENV, TENANT);
    assertThat(allowed(sa, "apps", "deployments", NS, "create")).isTrue();
    assertThat(allowed(sa, "", "configmaps", NS, "patch")).isTrue();
    // Another tenant's namespace, RBAC (denied by the default fence), cluster-scoped kinds.
    assertThat(allowed(sa, "apps", "deployments", "default", "create")).isFalse();
    assertThat(allowed(sa, "rbac.authorization.k8s.io", "roles", NS, "create")).isFalse();
    assertThat(allowed(sa, "rbac.authorization.k8s.io", "clusterrolebindings", "", "create"))
        .isFalse();
    // It may create its own namespace (createNamespace), by name, and no other.
    assertThat(allowed(sa, "", "namespaces", "", "patch", NS)).isTrue();
    assertThat(allowed(sa, "", "namespaces", "", "patch", "kube-system")).isFalse();
  }

  @Test
  @Order(3)
  void unbindingTheClusterRemovesTheAdapterObjectsAndRevokesTheToken() {
    AdapterStack.ok(
        hub.send(
            "PUT",
            stack.project("/environments/" + ENV),
            OWNER_TOKEN,
            Map.of("namespacePattern", "fx" + S + "-{{ .tenant }}", "clusters", List.of())));
    String name = AdapterNames.name(PROJECT, ENV, TENANT);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(
                      admin
                          .genericKubernetesResources(
                              "kustomize.toolkit.fluxcd.io/v1", "Kustomization")
                          .inNamespace("flux-system")
                          .withName(name)
                          .get())
                  .isNull();
              assertThat(admin.serviceAccounts().inNamespace("flux-system").withName(name).get())
                  .isNull();
            });
    // Flux's prune removed what the Kustomization had delivered.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(admin.apps().deployments().inNamespace(NS).withName("web").get())
                    .isNull());
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              JsonNode tokens =
                  AdapterStack.ok(hub.get(stack.project("/deploy-tokens"), OWNER_TOKEN));
              for (JsonNode t : tokens.get("items")) {
                if (t.get("name").asText().startsWith("adapter flux")) {
                  assertThat(t.get("revokedAt").isNull()).as(t.toString()).isFalse();
                }
              }
              assertThat(
                      AdapterStack.ok(
                              hub.get("/api/v2/clusters/" + clusterId + "/adapters", OWNER_TOKEN))
                          .get("bindings"))
                  .isEmpty();
            });
    Response audit = hub.get("/api/v2/audit?action=cluster.adapters_wired", OWNER_TOKEN);
    assertThat(audit.raw()).contains("configuration revision");
  }

  // ---- helpers ------------------------------------------------------------------------------

  static boolean allowed(String user, String group, String resource, String ns, String verb) {
    return allowed(user, group, resource, ns, verb, null);
  }

  static boolean allowed(
      String user, String group, String resource, String ns, String verb, String name) {
    SubjectAccessReview review =
        new SubjectAccessReviewBuilder()
            .withNewSpec()
            .withUser(user)
            .withGroups("system:serviceaccounts", "system:serviceaccounts:flux-system")
            .withNewResourceAttributes()
            .withGroup(group)
            .withResource(resource)
            .withNamespace(ns)
            .withVerb(verb)
            .withName(name)
            .endResourceAttributes()
            .endSpec()
            .build();
    return admin.resource(review).create().getStatus().getAllowed();
  }
}

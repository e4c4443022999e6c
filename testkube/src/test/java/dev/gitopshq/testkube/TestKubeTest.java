package dev.gitopshq.testkube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestKubeTest {

  private static final Path KUBECTL = Path.of("/usr/bin/kubectl");
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TestKube kube;
  private static HttpClient http;

  @TempDir static Path temp;

  @BeforeAll
  static void start() {
    kube = TestKube.start().seedDemo();
    http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  @AfterAll
  static void stop() {
    if (kube != null) {
      kube.close();
    }
  }

  @Test
  void seedsTheDemoDeploymentWithTwoReadyReplicas() {
    Deployment web = kube.client().apps().deployments().inNamespace("demo").withName("web").get();

    assertThat(web).isNotNull();
    assertThat(web.getSpec().getReplicas()).isEqualTo(2);
    assertThat(web.getStatus().getReadyReplicas()).isEqualTo(2);
    assertThat(web.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(web.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .startsWith("nginx");
  }

  @Test
  void seedsTheDemoArgoApplicationThroughTheGenericClient() {
    GenericKubernetesResource app =
        kube.client()
            .genericKubernetesResources("argoproj.io/v1alpha1", "Application")
            .inNamespace("argocd")
            .withName("demo-app")
            .get();

    assertThat(app).isNotNull();
    Map<String, Object> status = app.get("status");
    assertThat(app.<String>get("status", "sync", "status")).isEqualTo("Synced");
    assertThat(app.<String>get("status", "health", "status")).isEqualTo("Healthy");
    assertThat((List<?>) status.get("history")).hasSize(2);
    assertThat(app.<String>get("spec", "destination", "namespace")).isEqualTo("demo");
    assertThat(
            kube.client()
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("applications.argoproj.io")
                .get())
        .isNotNull();
  }

  @Test
  void storesApplicationsCreatedThroughTheGenericResourceApi() {
    KubernetesClient client = kube.client();
    GenericKubernetesResource app =
        new GenericKubernetesResourceBuilder()
            .withApiVersion(TestKube.ARGOCD_API_VERSION)
            .withKind(TestKube.APPLICATION_KIND)
            .withNewMetadata()
            .withName("created-app")
            .withNamespace("argocd")
            .endMetadata()
            .addToAdditionalProperties("spec", Map.of("project", "default"))
            .build();

    client.resource(app).create();

    assertThat(
            client
                .genericKubernetesResources(TestKube.APPLICATION)
                .inNamespace("argocd")
                .list()
                .getItems())
        .extracting(item -> item.getMetadata().getName())
        .contains("demo-app", "created-app");
  }

  @Test
  void scalesThroughTheScaleSubresource() {
    KubernetesClient client = kube.newClient();
    try (client) {
      Deployment copy =
          new DeploymentBuilder(
                  client.apps().deployments().inNamespace("demo").withName("web").get())
              .editMetadata()
              .withName("scaled")
              .withResourceVersion(null)
              .withUid(null)
              .endMetadata()
              .build();
      client.apps().deployments().inNamespace("demo").resource(copy).create();

      client.apps().deployments().inNamespace("demo").withName("scaled").scale(4);

      assertThat(
              client
                  .apps()
                  .deployments()
                  .inNamespace("demo")
                  .withName("scaled")
                  .get()
                  .getSpec()
                  .getReplicas())
          .isEqualTo(4);
      assertThat(
              client
                  .apps()
                  .deployments()
                  .inNamespace("demo")
                  .withName("scaled")
                  .scale()
                  .getStatus()
                  .getSelector())
          .isEqualTo("app=web");
    }
  }

  @Test
  void deliversWatchEventsToFabric8Clients() throws Exception {
    BlockingQueue<String> events = new LinkedBlockingQueue<>();
    Watcher<ConfigMap> watcher =
        new Watcher<>() {
          @Override
          public void eventReceived(Action action, ConfigMap configMap) {
            events.add(action + " " + configMap.getMetadata().getName());
          }

          @Override
          public void onClose(WatcherException cause) {}
        };
    Watch watch = kube.client().configMaps().inNamespace("default").watch(watcher);
    try {
      kube.client()
          .configMaps()
          .inNamespace("default")
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("watched")
                  .endMetadata()
                  .addToData("k", "v")
                  .build())
          .create();

      assertThat(events.poll(5, TimeUnit.SECONDS)).isEqualTo("ADDED watched");
    } finally {
      watch.close();
    }
  }

  @Test
  void servesCoreDiscovery() throws Exception {
    assertThat(get("/version").path("gitVersion").asText()).startsWith("v1.");
    assertThat(get("/api").path("versions").toString()).contains("\"v1\"");

    JsonNode coreResources = get("/api/v1");
    assertThat(coreResources.path("kind").asText()).isEqualTo("APIResourceList");
    JsonNode pods = resource(coreResources, "pods");
    assertThat(pods.path("namespaced").asBoolean()).isTrue();
    assertThat(pods.path("kind").asText()).isEqualTo("Pod");
    assertThat(pods.path("singularName").asText()).isEqualTo("pod");
    assertThat(pods.path("verbs").toString()).contains("list", "watch", "create");
    assertThat(resource(coreResources, "namespaces").path("namespaced").asBoolean()).isFalse();
    assertThat(names(coreResources))
        .contains(
            "pods",
            "services",
            "configmaps",
            "secrets",
            "namespaces",
            "events",
            "serviceaccounts",
            "persistentvolumeclaims");
  }

  @Test
  void servesGroupDiscoveryIncludingTheArgoCrd() throws Exception {
    JsonNode groups = get("/apis");
    List<String> groupVersions = new ArrayList<>();
    groups
        .path("groups")
        .forEach(
            group ->
                group
                    .path("versions")
                    .forEach(version -> groupVersions.add(version.path("groupVersion").asText())));
    assertThat(groupVersions)
        .contains(
            "apps/v1",
            "batch/v1",
            "networking.k8s.io/v1",
            "rbac.authorization.k8s.io/v1",
            "apiextensions.k8s.io/v1",
            "argoproj.io/v1alpha1");

    JsonNode apps = get("/apis/apps/v1");
    assertThat(names(apps))
        .contains("deployments", "statefulsets", "daemonsets", "replicasets", "deployments/scale");

    JsonNode argo = resource(get("/apis/argoproj.io/v1alpha1"), "applications");
    assertThat(argo.path("kind").asText()).isEqualTo("Application");
    assertThat(argo.path("namespaced").asBoolean()).isTrue();
    assertThat(argo.path("shortNames").toString()).contains("app", "apps");

    assertThat(status("/apis/nothing.example.com/v1")).isEqualTo(404);
  }

  @Test
  void writesAPrivateKubeconfigThatPointsHere() throws IOException {
    Path file = kube.writeKubeconfig(temp.resolve("nested/dir/kubeconfig"));

    String content = Files.readString(file);
    assertThat(content).contains("server: " + kube.url()).contains("current-context: testkube");
    assertThat(Files.getPosixFilePermissions(file))
        .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
  }

  @Test
  void realKubectlListsTheDemoObjects() throws Exception {
    assumeThat(Files.isExecutable(KUBECTL)).as("kubectl is installed at " + KUBECTL).isTrue();
    Path kubeconfig = kube.writeKubeconfig(temp.resolve("kubectl/kubeconfig"));

    assertThat(kubectl(kubeconfig, "get", "deployments", "-n", "demo", "-o", "name"))
        .isEqualTo("deployment.apps/web");
    assertThat(kubectl(kubeconfig, "get", "applications", "-n", "argocd"))
        .contains("demo-app")
        .contains("Synced")
        .contains("Healthy");
    assertThat(kubectl(kubeconfig, "get", "ns", "-o", "name"))
        .contains("namespace/demo", "namespace/argocd");
  }

  private static String kubectl(Path kubeconfig, String... args) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                KUBECTL.toString(),
                "--kubeconfig",
                kubeconfig.toString(),
                "--cache-dir",
                temp.resolve("kubectl-cache").toString(),
                "--request-timeout",
                "10s"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("kubectl finished").isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as("kubectl exit code, output: " + output).isZero();
    return output.trim();
  }

  private static JsonNode get(String path) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(kube.url() + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("GET " + path).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    return JSON.readTree(response.body());
  }

  private static int status(String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(kube.url() + path)).GET().build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static JsonNode resource(JsonNode list, String name) {
    for (JsonNode resource : list.path("resources")) {
      if (resource.path("name").asText().equals(name)) {
        return resource;
      }
    }
    throw new AssertionError("no resource " + name + " in " + list);
  }

  private static Set<String> names(JsonNode list) {
    Set<String> names = new HashSet<>();
    list.path("resources").forEach(resource -> names.add(resource.path("name").asText()));
    return names;
  }
}

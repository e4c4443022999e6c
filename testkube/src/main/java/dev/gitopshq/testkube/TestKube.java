package dev.gitopshq.testkube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A local Kubernetes API for tests and for {@code make run}: the Fabric8 mock API server in CRUD
 * mode, on a loopback port, with real discovery and the Argo CD {@code Application} CRD.
 *
 * <p>Objects written through any client are stored and served back the way an API server would
 * (create, get, list with label selectors, update, patch, delete, watch over WebSocket), and the
 * discovery documents are complete enough for the real {@code kubectl}. Nothing runs behind the
 * API: no controllers, so a Deployment's status is whatever the writer put there.
 *
 * <pre>{@code
 * try (TestKube kube = TestKube.start().seedDemo()) {
 *   KubernetesClient client = kube.client();
 *   Path kubeconfig = kube.writeKubeconfig(tempDir.resolve("kubeconfig"));
 *   ...
 * }
 * }</pre>
 *
 * <p>The server speaks plain HTTP on 127.0.0.1 and accepts any bearer token; it is a test fixture,
 * never to be exposed beyond the machine.
 */
public final class TestKube implements AutoCloseable {

  /** The Argo CD API group and version, as used in {@code apiVersion}. */
  public static final String ARGOCD_API_VERSION = "argoproj.io/v1alpha1";

  /** The Argo CD Application kind. */
  public static final String APPLICATION_KIND = "Application";

  /** The Argo CD Application resource, for APIs that take a definition context. */
  public static final CustomResourceDefinitionContext APPLICATION =
      new CustomResourceDefinitionContext.Builder()
          .withGroup("argoproj.io")
          .withVersion("v1alpha1")
          .withKind(APPLICATION_KIND)
          .withPlural("applications")
          .withScope("Namespaced")
          .build();

  /** The namespace and name of the Deployment {@link #seedDemo()} creates. */
  public static final String DEMO_NAMESPACE = "demo";

  /** The Deployment {@link #seedDemo()} creates in {@link #DEMO_NAMESPACE}. */
  public static final String DEMO_DEPLOYMENT = "web";

  /** The namespace of the Argo CD Application {@link #seedDemo()} creates. */
  public static final String ARGOCD_NAMESPACE = "argocd";

  /** The Argo CD Application {@link #seedDemo()} creates in {@link #ARGOCD_NAMESPACE}. */
  public static final String DEMO_APPLICATION = "demo-app";

  /** The server accepts any token; kubeconfigs carry this one so clients send something. */
  private static final String DUMMY_TOKEN = "testkube-not-a-secret";

  /**
   * The mock web server logs every request at INFO through java.util.logging. The logger is held
   * here because JUL keeps loggers weakly and would forget the level once collected.
   */
  private static final Logger REQUEST_LOG = Logger.getLogger(MockWebServer.class.getName());

  static {
    REQUEST_LOG.setLevel(Level.WARNING);
  }

  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final String url;

  private TestKube(KubernetesMockServer server, KubernetesClient client, String url) {
    this.server = server;
    this.client = client;
    this.url = url;
  }

  /** Starts a TestKube on a free loopback port. */
  public static TestKube start() {
    return start(0);
  }

  /**
   * Starts a TestKube on the given loopback port.
   *
   * @param port the TCP port on 127.0.0.1, or 0 for any free port
   * @throws IllegalStateException if the port cannot be bound
   */
  public static TestKube start(int port) {
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
    }
    KubernetesSerialization serialization = new KubernetesSerialization();
    KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher(List.of(APPLICATION));
    ApiDispatcher dispatcher = new ApiDispatcher(crud, serialization, versionInfo());
    MockWebServer web = new MockWebServer();
    // HTTP/2 cleartext upgrades confuse the JDK HttpClient on large bodies; HTTP/1.1 suffices.
    web.setHttp2ClearTextEnabled(false);
    KubernetesMockServer server =
        new KubernetesMockServer(new Context(), web, new HashMap<>(), dispatcher, false);
    InetAddress loopback = InetAddress.getLoopbackAddress();
    try {
      server.start(loopback, port);
    } catch (RuntimeException e) {
      server.shutdown();
      throw new IllegalStateException(
          "cannot start the test Kubernetes API on " + loopback.getHostAddress() + ":" + port, e);
    }
    String hostAndPort = loopback.getHostAddress() + ":" + server.getPort();
    dispatcher.attach(web, hostAndPort);
    String url = "http://" + hostAndPort;
    KubernetesClient client = new KubernetesClientBuilder().withConfig(clientConfig(url)).build();
    TestKube kube = new TestKube(server, client, url);
    try {
      kube.bootstrap();
    } catch (RuntimeException e) {
      kube.close();
      throw e;
    }
    return kube;
  }

  /** A client for this API; it is closed by {@link #close()}. */
  public KubernetesClient client() {
    return client;
  }

  /**
   * A new client for this API, owned by the caller, for tests that need their own settings or want
   * to close a client without closing TestKube.
   */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(clientConfig(url)).build();
  }

  /** The API server's base URL, e.g. {@code http://127.0.0.1:41235}, without a trailing slash. */
  public String url() {
    return url;
  }

  /** The TCP port the API listens on. */
  public int port() {
    return server.getPort();
  }

  /**
   * Writes a kubeconfig that points at this API (context, cluster and user all named {@code
   * testkube}, default namespace {@code default}) with file mode 600, creating parent directories.
   *
   * @return {@code file}
   */
  public Path writeKubeconfig(Path file) {
    String tlsLine = url.startsWith("https:") ? "    insecure-skip-tls-verify: true\n" : "";
    String yaml =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: testkube
          cluster:
            server: %s
        %scontexts:
        - name: testkube
          context:
            cluster: testkube
            user: testkube
            namespace: default
        current-context: testkube
        users:
        - name: testkube
          user:
            token: %s
        preferences: {}
        """
            .formatted(url, tlsLine, DUMMY_TOKEN);
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, yaml, StandardCharsets.UTF_8);
      try {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        // Non-POSIX file systems keep their default permissions; the token is a dummy anyway.
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write kubeconfig " + file, e);
    }
    return file;
  }

  /**
   * Creates the demo objects: namespace {@code demo} with Deployment {@code web} (2 replicas of
   * nginx, label {@code app=web}, status 2/2 ready), and namespace {@code argocd} with the Argo CD
   * Application {@code demo-app} (Synced, Healthy, two history entries). Calling it again replaces
   * the objects with fresh copies.
   *
   * @return this, for chaining
   */
  public TestKube seedDemo() {
    createOrReplace(namespace(DEMO_NAMESPACE));
    client
        .apps()
        .deployments()
        .inNamespace(DEMO_NAMESPACE)
        .resource(demoDeployment())
        .createOr(NonDeletingOperation::update);
    createOrReplace(namespace(ARGOCD_NAMESPACE));
    client
        .genericKubernetesResources(ARGOCD_API_VERSION, APPLICATION_KIND)
        .inNamespace(ARGOCD_NAMESPACE)
        .resource(demoApplication())
        .createOr(NonDeletingOperation::update);
    return this;
  }

  /** Stops the API and closes {@link #client()}. Stored objects are discarded. */
  @Override
  public void close() {
    try {
      client.close();
    } finally {
      server.destroy();
    }
  }

  private void bootstrap() {
    // A real cluster always has these; tools such as kubectl default to "default".
    createOrReplace(namespace("default"));
    createOrReplace(namespace("kube-system"));
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .resource(applicationCrd())
        .createOr(NonDeletingOperation::update);
  }

  private void createOrReplace(Namespace namespace) {
    client.namespaces().resource(namespace).createOr(NonDeletingOperation::update);
  }

  private static Namespace namespace(String name) {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("kubernetes.io/metadata.name", name)
        .endMetadata()
        .withNewStatus()
        .withPhase("Active")
        .endStatus()
        .build();
  }

  private static Config clientConfig(String url) {
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(url)
        .withNamespace("default")
        .withOauthToken(DUMMY_TOKEN)
        .withHttp2Disable(true)
        .withRequestRetryBackoffLimit(0)
        .build();
  }

  private static Map<String, Object> versionInfo() {
    Map<String, Object> version = new LinkedHashMap<>();
    version.put("major", "1");
    version.put("minor", "32");
    version.put("gitVersion", "v1.32.0-testkube");
    version.put("gitCommit", "0000000000000000000000000000000000000000");
    version.put("gitTreeState", "clean");
    version.put("buildDate", "2025-01-01T00:00:00Z");
    version.put("goVersion", "go1.23.4");
    version.put("compiler", "gc");
    version.put("platform", "linux/amd64");
    return version;
  }

  private static CustomResourceDefinition applicationCrd() {
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata()
        .withName("applications.argoproj.io")
        .addToLabels("app.kubernetes.io/name", "applications.argoproj.io")
        .addToLabels("app.kubernetes.io/part-of", "argocd")
        .endMetadata()
        .withNewSpec()
        .withGroup("argoproj.io")
        .withScope("Namespaced")
        .withNewNames()
        .withKind(APPLICATION_KIND)
        .withListKind("ApplicationList")
        .withPlural("applications")
        .withSingular("application")
        .withShortNames("app", "apps")
        .endNames()
        .addNewVersion()
        .withName("v1alpha1")
        .withServed(true)
        .withStorage(true)
        .withNewSchema()
        .withNewOpenAPIV3Schema()
        .withType("object")
        .withXKubernetesPreserveUnknownFields(true)
        .endOpenAPIV3Schema()
        .endSchema()
        .addNewAdditionalPrinterColumn()
        .withName("Sync Status")
        .withType("string")
        .withJsonPath(".status.sync.status")
        .endAdditionalPrinterColumn()
        .addNewAdditionalPrinterColumn()
        .withName("Health Status")
        .withType("string")
        .withJsonPath(".status.health.status")
        .endAdditionalPrinterColumn()
        .endVersion()
        .endSpec()
        .build();
  }

  private static Deployment demoDeployment() {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(DEMO_DEPLOYMENT)
        .withNamespace(DEMO_NAMESPACE)
        .addToLabels("app", "web")
        .endMetadata()
        .withNewSpec()
        .withReplicas(2)
        .withNewSelector()
        .addToMatchLabels("app", "web")
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", "web")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("web")
        .withImage("nginx:1.27")
        .addNewPort()
        .withContainerPort(80)
        .withName("http")
        .endPort()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .withNewStatus()
        .withObservedGeneration(1L)
        .withReplicas(2)
        .withUpdatedReplicas(2)
        .withReadyReplicas(2)
        .withAvailableReplicas(2)
        .addNewCondition()
        .withType("Available")
        .withStatus("True")
        .withReason("MinimumReplicasAvailable")
        .withMessage("Deployment has minimum availability.")
        .endCondition()
        .addNewCondition()
        .withType("Progressing")
        .withStatus("True")
        .withReason("NewReplicaSetAvailable")
        .withMessage("ReplicaSet \"web-5d4b8c7f9\" has successfully progressed.")
        .endCondition()
        .endStatus()
        .build();
  }

  private static GenericKubernetesResource demoApplication() {
    String previous = "9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c";
    String current = "4f2e6a8c0b1d3e5f7a9c1b3d5e7f9a1c3b5d7e9f";
    Map<String, Object> source =
        Map.of(
            "repoURL", "https://git.example.com/gitopshq/demo-deploy.git",
            "path", "environments/demo/web",
            "targetRevision", "main");
    Map<String, Object> spec =
        Map.of(
            "project",
            "default",
            "source",
            source,
            "destination",
            Map.of("server", "https://kubernetes.default.svc", "namespace", DEMO_NAMESPACE));
    Map<String, Object> status =
        Map.of(
            "sync",
            Map.of(
                "status",
                "Synced",
                "revision",
                current,
                "comparedTo",
                Map.of(
                    "source",
                    source,
                    "destination",
                    Map.of(
                        "server", "https://kubernetes.default.svc", "namespace", DEMO_NAMESPACE))),
            "health",
            Map.of("status", "Healthy"),
            "history",
            List.of(
                Map.of(
                    "id",
                    0,
                    "revision",
                    previous,
                    "deployedAt",
                    "2025-01-01T10:00:00Z",
                    "source",
                    source),
                Map.of(
                    "id",
                    1,
                    "revision",
                    current,
                    "deployedAt",
                    "2025-01-02T10:00:00Z",
                    "source",
                    source)),
            "reconciledAt",
            "2025-01-02T10:00:05Z",
            "sourceType",
            "Directory");
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(ARGOCD_API_VERSION)
        .withKind(APPLICATION_KIND)
        .withNewMetadata()
        .withName(DEMO_APPLICATION)
        .withNamespace(ARGOCD_NAMESPACE)
        .endMetadata()
        .addToAdditionalProperties("spec", spec)
        .addToAdditionalProperties("status", status)
        .build();
  }
}

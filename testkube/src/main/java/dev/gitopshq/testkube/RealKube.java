package dev.gitopshq.testkube;

import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Kubernetes control plane on loopback for end-to-end tests: etcd, kube-apiserver (RBAC on,
 * server-side apply), kube-controller-manager, kube-scheduler and kwok's simulated node, started by
 * {@code tools/dev/kube.sh} from the binaries {@code tools/build-tools.sh kube} builds.
 *
 * <p>One control plane serves a whole test JVM: {@link #shared()} starts it on first use and stops
 * it when the JVM exits. Tests isolate themselves by namespace. Where the Fabric8 mock ({@link
 * TestKube}) only stores objects, this one runs them: Deployments get ReplicaSets and Pods, Pods
 * are scheduled onto the kwok node and turn Running, RBAC refuses what a role does not allow, and
 * server-side apply computes field ownership. {@link #withFlux()} adds Flux's source-controller and
 * kustomize-controller, {@link #withArgoCd()} Argo CD's repo-server and application-controller.
 */
public final class RealKube implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofMinutes(20);
  private static RealKube shared;

  private final Path repoRoot;
  private final Path dir;
  private final String url;
  private final Path kubeconfig;
  private String fluxStorageUrl;
  private String argoCdNamespace;

  private RealKube(Path repoRoot, Path dir, String url, Path kubeconfig) {
    this.repoRoot = repoRoot;
    this.dir = dir;
    this.url = url;
    this.kubeconfig = kubeconfig;
  }

  /** The JVM's control plane, started on first use (the first start may build the binaries). */
  public static synchronized RealKube shared() {
    if (shared == null) {
      try {
        Path dir = Files.createTempDirectory("gitopshq-kube-");
        shared = start(repoRoot(), dir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      RealKube k = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(k::close, "real-kube-stop"));
    }
    return shared;
  }

  /** Starts a control plane whose state lives in {@code dir}. */
  public static RealKube start(Path repoRoot, Path dir) {
    List<String> ready = run(repoRoot, START_TIMEOUT, "start", dir.toString());
    String line =
        ready.stream()
            .filter(l -> l.startsWith("kube ready "))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("kube.sh did not say ready: " + ready));
    // "kube ready <url> kubeconfig=<path>"
    String[] parts = line.split(" ");
    return new RealKube(
        repoRoot, dir, parts[2], Path.of(parts[3].substring("kubeconfig=".length())));
  }

  /**
   * Starts Flux's source-controller and kustomize-controller (v1.9.6) beside this control plane,
   * unless they already run: their CRDs applied, namespace {@code flux-system}, both watching every
   * namespace with the admin's credentials ({@code tools/dev/kube.sh flux-start}). They stay up
   * until the control plane stops.
   *
   * <p>A test never builds them (the first build takes ~10 minutes on 2 cores): when they are not
   * in the tool cache this fails with the command that builds them, {@code tools/build-tools.sh
   * flux}, which {@code make test} runs first.
   *
   * @return this control plane
   */
  public synchronized RealKube withFlux() {
    if (fluxStorageUrl != null) {
      return this;
    }
    requireFluxBuilt(repoRoot, Map.of());
    List<String> ready = run(repoRoot, Duration.ofMinutes(2), "flux-start", dir.toString());
    // "flux ready storage=<url>"
    fluxStorageUrl =
        ready.stream()
            .filter(l -> l.startsWith("flux ready storage="))
            .map(l -> l.substring("flux ready storage=".length()))
            .findFirst()
            .orElseThrow(
                () -> new IllegalStateException("kube.sh did not say flux ready: " + ready));
    return this;
  }

  /**
   * Fails, naming the command that builds them, unless both Flux controllers are in the tool cache
   * ({@code tools/bin-path.sh}, run with {@code env} added to this JVM's environment).
   */
  static void requireFluxBuilt(Path repoRoot, Map<String, String> env) {
    for (String controller : List.of("source-controller", "kustomize-controller")) {
      if (run(repoRoot, "tools/bin-path.sh", env, Duration.ofSeconds(30), true, controller)
          == null) {
        throw new IllegalStateException(
            "Flux's "
                + controller
                + " is not built; run tools/build-tools.sh flux first (about 10 minutes on 2"
                + " cores the first time; make test does it)");
      }
    }
  }

  /**
   * Starts Argo CD's repo-server and application-controller (v3.6.1) with a redis beside this
   * control plane, unless they already run: its CRDs applied, namespace {@code argocd} with the
   * ConfigMaps {@code argocd-cm} (a periodic refresh only every hour), {@code argocd-rbac-cm},
   * {@code argocd-cmd-params-cm} and the Secret {@code argocd-secret}; the controller manages the
   * Applications of namespace {@code argocd} with the admin's credentials ({@code tools/dev/kube.sh
   * argocd-start}). They stay up until the control plane stops.
   *
   * <p>A test never builds Argo CD (about 5 minutes on 2 cores the first time): when it is not in
   * the tool cache this fails with the command that builds it, {@code tools/build-tools.sh argocd},
   * which {@code make test} runs first.
   *
   * @return this control plane
   */
  public synchronized RealKube withArgoCd() {
    if (argoCdNamespace != null) {
      return this;
    }
    requireArgoCdBuilt(repoRoot, Map.of());
    List<String> ready = run(repoRoot, Duration.ofMinutes(3), "argocd-start", dir.toString());
    // "argocd ready namespace=<ns> repo-server=<host:port>"
    argoCdNamespace =
        ready.stream()
            .filter(l -> l.startsWith("argocd ready namespace="))
            .map(l -> l.split(" ")[2].substring("namespace=".length()))
            .findFirst()
            .orElseThrow(
                () -> new IllegalStateException("kube.sh did not say argocd ready: " + ready));
    return this;
  }

  /** Fails, naming the command that builds it, unless Argo CD's binary is in the tool cache. */
  static void requireArgoCdBuilt(Path repoRoot, Map<String, String> env) {
    if (run(repoRoot, "tools/bin-path.sh", env, Duration.ofSeconds(30), true, "argocd") == null) {
      throw new IllegalStateException(
          "Argo CD (argocd) is not built; run tools/build-tools.sh argocd first (about 5 minutes"
              + " on 2 cores the first time; make test does it)");
    }
  }

  /**
   * The namespace of Argo CD's settings, repository Secrets, AppProjects and Applications, once
   * {@link #withArgoCd()} started it.
   */
  public String argoCdNamespace() {
    if (argoCdNamespace == null) {
      throw new IllegalStateException("Argo CD is not running here; call withArgoCd() first");
    }
    return argoCdNamespace;
  }

  /**
   * Where source-controller serves the artifacts it made (its {@code --storage-adv-addr}), once
   * {@link #withFlux()} started it.
   */
  public String fluxStorageUrl() {
    if (fluxStorageUrl == null) {
      throw new IllegalStateException("Flux is not running here; call withFlux() first");
    }
    return fluxStorageUrl;
  }

  /** The API server's URL ({@code https://127.0.0.1:<port>}). */
  public String url() {
    return url;
  }

  /** The admin kubeconfig ({@code system:masters}), usable by {@code kubectl} as it is. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /**
   * The CRI-format file kwok serves as the log of every container in {@code namespace} (demo or
   * payments); a test may append lines to it to make its pods chatty.
   */
  public Path podLogFile(String namespace) {
    return dir.resolve("pod-logs").resolve(namespace + ".log");
  }

  /** A client with the admin's credentials. */
  public KubernetesClient adminClient() {
    try {
      String yaml = Files.readString(kubeconfig, StandardCharsets.UTF_8);
      return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(yaml)).build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A client that authenticates as a ServiceAccount with a fresh bound token (TokenRequest), the
   * way an in-cluster agent does: it gets exactly what the account's roles allow.
   */
  public KubernetesClient serviceAccountClient(String namespace, String name) {
    try (KubernetesClient admin = adminClient()) {
      TokenRequest request =
          new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build();
      String token =
          admin
              .serviceAccounts()
              .inNamespace(namespace)
              .withName(name)
              .tokenRequest(request)
              .getStatus()
              .getToken();
      Config base = admin.getConfiguration();
      Config config =
          new ConfigBuilder()
              .withMasterUrl(url)
              .withCaCertData(base.getCaCertData())
              .withCaCertFile(base.getCaCertFile())
              .withOauthToken(token)
              .withNamespace(namespace)
              .build();
      return new KubernetesClientBuilder().withConfig(config).build();
    }
  }

  @Override
  public void close() {
    run(repoRoot, Duration.ofMinutes(1), "stop", dir.toString());
  }

  private static List<String> run(Path repoRoot, Duration timeout, String... args) {
    return run(repoRoot, "tools/dev/kube.sh", Map.of(), timeout, false, args);
  }

  /**
   * Runs a script of the repository and returns its output lines; when it fails, throws, or returns
   * null if {@code nullOnFailure}.
   */
  private static List<String> run(
      Path repoRoot,
      String script,
      Map<String, String> env,
      Duration timeout,
      boolean nullOnFailure,
      String... args) {
    List<String> command = new ArrayList<>(List.of("bash", repoRoot.resolve(script).toString()));
    command.addAll(List.of(args));
    try {
      Path out = Files.createTempFile("kube-sh-", ".log");
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
      builder.environment().putAll(env);
      Process p = builder.start();
      if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(script + " " + args[0] + " took over " + timeout);
      }
      List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
      Files.deleteIfExists(out);
      if (p.exitValue() != 0) {
        if (nullOnFailure) {
          return null;
        }
        throw new IllegalStateException(
            script + " " + args[0] + " failed: " + String.join("\n", lines));
      }
      return lines;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The repository root: the system property the build sets, else the first parent with tools/. */
  static Path repoRoot() {
    String prop = System.getProperty("gitopshq.repo.root");
    if (prop != null && !prop.isBlank()) {
      return Path.of(prop).toAbsolutePath();
    }
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isRegularFile(p.resolve("tools/dev/kube.sh"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("no tools/dev/kube.sh above " + Path.of("").toAbsolutePath());
    }
    return p;
  }
}

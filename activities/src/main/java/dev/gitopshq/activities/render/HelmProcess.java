package dev.gitopshq.activities.render;

import com.marcnuri.helm.Helm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way into Helm's Go library.
 *
 * <p>helm-java's {@code template} builds a Kubernetes client from the usual places (KUBECONFIG,
 * {@code ~/.kube/config}, the in-cluster service account), so a chart's {@code lookup} would read
 * whatever cluster those name, with that identity. Charts that call {@code lookup} are refused
 * before Helm runs ({@link ChartArchive#lookupUse}); as a second line, the hub should run where
 * none of those places names a cluster (the hub's Helm chart mounts no service-account token, and
 * {@code make run} gives the hub a kubeconfig whose one cluster is a closed port). Go reads the
 * environment the JVM was started with, the same one {@link System#getenv} shows, so the first use
 * checks it and says loudly when a cluster is reachable that way.
 */
final class HelmProcess {
  private static final Logger log = LoggerFactory.getLogger(HelmProcess.class);

  /** The message of Helm's error when a template's {@code lookup} finds no cluster. */
  static final String LOOKUP_ERROR = "error calling lookup";

  private static volatile boolean checked;

  private HelmProcess() {}

  /**
   * Runs one of Helm's install-family calls ({@code template}): counted for {@link
   * #releaseGoroutines}, which never runs while one of them does.
   */
  static <T> T template(java.util.function.Supplier<T> call) {
    CALLS.readLock().lock();
    dev.gitopshq.activities.metrics.Meters.helmTemplateCall();
    try {
      T out = call.get();
      // A call that succeeded got as far as os/signal.Notify: Go handles SIGQUIT from now on.
      goOwnsQuit = true;
      return out;
    } finally {
      CALLS.readLock().unlock();
      if (sinceRelease.incrementAndGet() >= RELEASE_EVERY) {
        releaseGoroutines();
      }
    }
  }

  /** Helm calls running now hold it shared; {@link #releaseGoroutines} holds it alone. */
  private static final java.util.concurrent.locks.ReentrantReadWriteLock CALLS =
      new java.util.concurrent.locks.ReentrantReadWriteLock();

  /** A template call has succeeded, so Go's handler owns SIGQUIT. */
  private static volatile boolean goOwnsQuit;

  private static final java.util.concurrent.atomic.AtomicInteger sinceRelease =
      new java.util.concurrent.atomic.AtomicInteger();
  private static final java.util.concurrent.atomic.AtomicLong releases =
      new java.util.concurrent.atomic.AtomicLong();

  /** How many template calls may leave their goroutine before they are freed. */
  static final int RELEASE_EVERY = 200;

  /** Whether the goroutines are freed: {@code -Dgitopshq.helm.releaseGoroutines=false} stops it. */
  static final boolean RELEASE_ENABLED =
      !"false".equals(System.getProperty("gitopshq.helm.releaseGoroutines"))
          && !java.lang.management.ManagementFactory.getRuntimeMXBean()
              .getInputArguments()
              .contains("-Xrs")
          && System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux");

  private static final int SIGQUIT = 3;

  /** libc's kill(2). */
  interface LibC extends com.sun.jna.Library {
    int kill(int pid, int signal);
  }

  /**
   * Frees the goroutines helm-java's template calls leave behind, when no Helm call runs.
   *
   * <p>Every install or template call of helm-java 0.0.21 (still so upstream) registers a channel
   * for SIGINT, SIGTERM and SIGQUIT with {@code os/signal.Notify} and starts a goroutine that waits
   * on it; neither is ever stopped: 4.35 KB of the process's memory per render, for good ({@code
   * bench/run-render-soak.sh}: 60,000 renders took RSS from 297 to 559 MiB). One SIGQUIT to the
   * process wakes every such goroutine, which cancels its own call's context (long finished) and
   * ends. Go, not the JVM, handles SIGQUIT once a template call has registered it ({@link
   * HelmSignals} gives TERM, INT and HUP back to the JVM, not QUIT), so the JVM prints no thread
   * dump. The signal is sent only while no Helm call runs (a running call's context would be
   * cancelled), after at least one template call that succeeded, and not under {@code -Xrs} (where
   * SIGQUIT could reach the default action). What stays is each call's registered channel: Go's
   * live heap grows by about 0.33 KB per render (GODEBUG=gctrace=1: 3 to 16 MB over 40,000
   * renders), counted by {@code gitopshq_helm_template_calls_total}.
   *
   * @return whether the signal was sent (false: a Helm call runs, nothing to free, or disabled)
   */
  static boolean releaseGoroutines() {
    if (!RELEASE_ENABLED || !goOwnsQuit || !CALLS.writeLock().tryLock()) {
      return false;
    }
    try {
      sinceRelease.set(0);
      int result = LibCHolder.LIBC.kill((int) ProcessHandle.current().pid(), SIGQUIT);
      if (result != 0) {
        log.warn("could not free Helm's waiting goroutines: kill returned {}", result);
        return false;
      }
      releases.incrementAndGet();
      // Go hands the signal to the waiting goroutines on a goroutine of its own: before the next
      // Helm call registers its channel (which would be cancelled), give it that moment.
      Thread.sleep(20);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    } catch (LinkageError e) {
      log.warn("could not free Helm's waiting goroutines: {}", e.toString());
      return false;
    } finally {
      CALLS.writeLock().unlock();
    }
  }

  /** How many times the goroutines were freed (tests, the benchmark). */
  static long releases() {
    return releases.get();
  }

  private static final class LibCHolder {
    static final LibC LIBC = com.sun.jna.Native.load("c", LibC.class);
  }

  /** A Helm client for a chart. */
  static Helm helm(Path chart) {
    if (!checked) {
      check(System.getenv(), Path.of(System.getProperty("user.home", "/nonexistent")));
    }
    return new Helm(chart);
  }

  private static synchronized void check(Map<String, String> env, Path home) {
    if (checked) {
      return;
    }
    checked = true;
    List<String> reachable = clusterSources(env, home);
    if (!reachable.isEmpty()) {
      log.warn(
          "Helm renders run where a Kubernetes cluster is configured ({}); charts that call lookup"
              + " are refused, but run the hub without KUBECONFIG, ~/.kube/config or a mounted"
              + " service-account token so that no template can reach a cluster",
          String.join(", ", reachable));
    }
  }

  /** The places Helm's client would find a cluster in, for this environment. */
  static List<String> clusterSources(Map<String, String> env, Path home) {
    List<String> out = new ArrayList<>();
    String kubeconfig = env.get("KUBECONFIG");
    if (kubeconfig != null && !kubeconfig.isBlank()) {
      for (String file : kubeconfig.split(":")) {
        if (!file.isBlank() && Files.isReadable(Path.of(file)) && !noCluster(Path.of(file))) {
          out.add("KUBECONFIG " + file);
        }
      }
    } else if (Files.isReadable(home.resolve(".kube/config"))) {
      out.add(home.resolve(".kube/config").toString());
    }
    if (env.containsKey("KUBERNETES_SERVICE_HOST")
        && Files.exists(Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token"))) {
      out.add("the in-cluster service account");
    }
    return out;
  }

  /** A kubeconfig whose every server is a closed loopback port (the one make run writes). */
  private static boolean noCluster(Path file) {
    try {
      List<String> servers =
          Files.readAllLines(file).stream()
              .map(String::strip)
              .filter(l -> l.startsWith("server:"))
              .toList();
      return !servers.isEmpty()
          && servers.stream().allMatch(l -> l.equals("server: http://127.0.0.1:1"));
    } catch (java.io.IOException e) {
      return false;
    }
  }
}

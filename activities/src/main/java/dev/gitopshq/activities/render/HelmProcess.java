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
   * #releaseGoroutines}, which never runs while one of them does; afterwards the termination
   * signals ({@link HelmSignals}) and SIGQUIT ({@link QuitSignal}) are the JVM's again.
   */
  static <T> T template(java.util.function.Supplier<T> call) {
    CALLS.readLock().lock();
    dev.gitopshq.activities.metrics.Meters.helmTemplateCall();
    try {
      T out = call.get();
      // A call that succeeded got as far as os/signal.Notify: Go has a handler for SIGQUIT.
      callSucceeded = true;
      return out;
    } finally {
      // Still under the shared lock: a release (which holds it alone) never sees Go's handler
      // half swapped.
      QuitSignal.takeBack();
      HelmSignals.reclaim();
      CALLS.readLock().unlock();
      if (sinceRelease.incrementAndGet() >= RELEASE_EVERY) {
        releaseGoroutines();
      }
    }
  }

  /** Helm calls running now hold it shared; {@link #releaseGoroutines} holds it alone. */
  private static final java.util.concurrent.locks.ReentrantReadWriteLock CALLS =
      new java.util.concurrent.locks.ReentrantReadWriteLock();

  /** A template call has succeeded, so Go has installed its handler for SIGQUIT. */
  private static volatile boolean callSucceeded;

  private static final java.util.concurrent.atomic.AtomicInteger sinceRelease =
      new java.util.concurrent.atomic.AtomicInteger();
  private static final java.util.concurrent.atomic.AtomicLong releases =
      new java.util.concurrent.atomic.AtomicLong();

  /** How many template calls may leave their goroutine before they are freed. */
  static final int RELEASE_EVERY = 200;

  private static final boolean LINUX =
      System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux");

  /** Under -Xrs the JVM installs no SIGQUIT handler of its own: Go's stays, and nothing is sent. */
  private static final boolean REDUCED_SIGNALS =
      java.lang.management.ManagementFactory.getRuntimeMXBean()
          .getInputArguments()
          .contains("-Xrs");

  /** Whether the goroutines are freed: {@code -Dgitopshq.helm.releaseGoroutines=false} stops it. */
  static final boolean RELEASE_ENABLED =
      !"false".equals(System.getProperty("gitopshq.helm.releaseGoroutines"))
          && !REDUCED_SIGNALS
          && LINUX;

  private static final int SIGQUIT = 3;

  static {
    // Every Helm call goes through this class, so this runs before Go can take SIGQUIT.
    QuitSignal.capture();
  }

  /** libc's kill(2) and sigaction(2). */
  interface LibC extends com.sun.jna.Library {
    int kill(int pid, int signal);

    int sigaction(int signal, com.sun.jna.Pointer action, com.sun.jna.Pointer oldAction);
  }

  /**
   * SIGQUIT belongs to the JVM between Helm calls, so {@code jcmd}, {@code jstack} and {@code kill
   * -3} work on a hub that has rendered; Go's handler is kept aside for {@link #releaseGoroutines}.
   *
   * <p>The first template call's {@code os/signal.Notify} installs Go's handler for SIGQUIT in
   * place of the JVM's, once: Go installs a handler only for a signal it does not handle yet, and
   * helm-java never stops its registrations. So after each call the JVM's action (read before any
   * Helm call) is put back, and whatever was there, if not the JVM's, is kept as Go's. The release
   * puts Go's back for the moment of its one signal. Off under {@code -Xrs} (the JVM has no handler
   * to give back: Go's stays) and off Linux. The actions are handled as opaque bytes: 256 is more
   * than Linux's {@code struct sigaction} (152 bytes on x86-64 and arm64).
   */
  static final class QuitSignal {
    private static final int SIZE = 256;
    private static final com.sun.jna.Memory JVM = new com.sun.jna.Memory(SIZE);
    private static final com.sun.jna.Memory GO = new com.sun.jna.Memory(SIZE);
    private static final com.sun.jna.Memory SEEN = new com.sun.jna.Memory(SIZE);
    private static volatile boolean enabled;
    private static volatile boolean goKnown;

    private QuitSignal() {}

    /** Reads the JVM's action: before the first Helm call, from HelmProcess's initializer. */
    static synchronized void capture() {
      JVM.clear();
      GO.clear();
      if (LINUX && !REDUCED_SIGNALS) {
        try {
          enabled = LibCHolder.LIBC.sigaction(SIGQUIT, null, JVM) == 0;
        } catch (LinkageError e) {
          log.warn("SIGQUIT stays Go's after the first render: {}", e.toString());
        }
      }
    }

    /** Gives SIGQUIT back to the JVM, keeping Go's handler if Go had installed it. */
    static synchronized void takeBack() {
      if (!enabled) {
        return;
      }
      if (LibCHolder.LIBC.sigaction(SIGQUIT, JVM, SEEN) != 0) {
        return;
      }
      if (SEEN.getLong(0) != JVM.getLong(0)) {
        GO.write(0, SEEN.getByteArray(0, SIZE), 0, SIZE);
        goKnown = true;
      }
    }

    /**
     * Whether Go has a handler for SIGQUIT to wake its waiting goroutines with: kept aside here, or
     * (no swapping) installed by a call that succeeded.
     */
    static boolean goReady() {
      return enabled ? goKnown : callSucceeded;
    }

    /** Whether SIGQUIT has the JVM's handler now (false when nothing is swapped here). */
    static synchronized boolean jvmHoldsIt() {
      if (!enabled) {
        return false;
      }
      return LibCHolder.LIBC.sigaction(SIGQUIT, null, SEEN) == 0
          && SEEN.getLong(0) == JVM.getLong(0);
    }

    /** Runs {@code send} with Go's handler installed, then puts the JVM's back. */
    static synchronized boolean withGos(java.util.function.BooleanSupplier send) {
      if (!enabled) {
        // Nothing is swapped here: Go's handler is installed already.
        return send.getAsBoolean();
      }
      LibCHolder.LIBC.sigaction(SIGQUIT, GO, null);
      try {
        return send.getAsBoolean();
      } finally {
        LibCHolder.LIBC.sigaction(SIGQUIT, JVM, null);
      }
    }
  }

  /**
   * Frees the goroutines helm-java's template calls leave behind, when no Helm call runs.
   *
   * <p>Every install or template call of helm-java 0.0.21 (still so upstream) registers a channel
   * for SIGINT, SIGTERM and SIGQUIT with {@code os/signal.Notify} and starts a goroutine that waits
   * on it; neither is ever stopped: 4.35 KB of the process's memory per render, for good ({@code
   * bench/run-render-soak.sh}: 60,000 renders took RSS from 297 to 559 MiB). One SIGQUIT to the
   * process, taken by Go's handler ({@link QuitSignal} installs it for that moment), wakes every
   * such goroutine, which cancels its own call's context (long finished) and ends; the JVM prints
   * no thread dump. The signal is sent only while no Helm call runs (a running call's context would
   * be cancelled), after a template call has installed Go's handler, and not under {@code -Xrs}.
   * What stays is each call's registered channel: Go's live heap grows by about 0.33 KB per render
   * (GODEBUG=gctrace=1: 3 to 16 MB over 40,000 renders), counted by {@code
   * gitopshq_helm_template_calls_total}.
   *
   * @return whether the signal was sent (false: a Helm call runs, nothing to free, or disabled)
   */
  static boolean releaseGoroutines() {
    if (!RELEASE_ENABLED || !QuitSignal.goReady() || !CALLS.writeLock().tryLock()) {
      return false;
    }
    try {
      sinceRelease.set(0);
      return QuitSignal.withGos(
          () -> {
            int result = LibCHolder.LIBC.kill((int) ProcessHandle.current().pid(), SIGQUIT);
            if (result != 0) {
              log.warn("could not free Helm's waiting goroutines: kill returned {}", result);
              return false;
            }
            releases.incrementAndGet();
            // Go takes the signal on a thread of its own and hands it to the waiting goroutines:
            // give it that moment before the JVM's handler is back and the next Helm call runs.
            try {
              Thread.sleep(20);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return true;
          });
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

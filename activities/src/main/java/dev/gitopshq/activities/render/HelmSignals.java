package dev.gitopshq.activities.render;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Gives SIGTERM, SIGINT and SIGHUP back to the JVM after a call into Helm's Go library.
 *
 * <p>helm-java's {@code template} runs Helm's install action, which registers Go signal handlers
 * ({@code os/signal.Notify}) for termination signals. In a shared library that replaces the JVM's
 * handlers for the whole process, so a hub that has rendered a chart would ignore {@code kill} and
 * Kubernetes' SIGTERM: no graceful shutdown, killed after the grace period. After every call
 * ({@link HelmProcess#template}) the JVM's handling is installed again: the signal exits the JVM
 * with 128 + the signal's number, running the shutdown hooks (Spring's graceful shutdown), exactly
 * what the JVM does by default. Go installs its handler for a signal once, at its first
 * registration, so only a signal that arrives during the process's first render is Go's and lost;
 * during later renders it is the JVM's.
 */
final class HelmSignals {
  private static final Logger log = LoggerFactory.getLogger(HelmSignals.class);
  private static final List<String> SIGNALS = List.of("TERM", "INT", "HUP");

  private HelmSignals() {}

  static void reclaim() {
    for (String name : SIGNALS) {
      try {
        Signal.handle(
            new Signal(name),
            s -> {
              Thread exit =
                  new Thread(() -> System.exit(128 + s.getNumber()), "signal-" + s.getName());
              exit.setDaemon(false);
              exit.start();
            });
      } catch (IllegalArgumentException e) {
        // The JVM runs with -Xrs or the signal is reserved here: leave it as it is.
        log.debug("cannot take back SIG{}: {}", name, e.getMessage());
      }
    }
  }
}

package dev.gitopshq.hub;

import dev.gitopshq.activities.policy.OpaTestServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real Temporal dev server ({@code temporal server start-dev}, SQLite in a temp directory) as a
 * child process, for the integration tests that restart the hub: handing a stopped worker's
 * workflows to its successor is server behaviour the in-process test server does not reproduce. The
 * binary comes from GITOPSHQ_TEMPORAL_BIN or {@code tools/bin-path.sh temporal}.
 */
public final class TemporalDevServer implements AutoCloseable {
  private static final Duration STARTUP = Duration.ofSeconds(60);
  private final Process process;
  private final int port;
  private final Path log;

  private TemporalDevServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  public static TemporalDevServer start() {
    try {
      Path dir = Files.createTempDirectory("gitopshq-temporal");
      int port = HubTestSupport.freePort();
      Path log = dir.resolve("temporal.log");
      List<String> command =
          new ArrayList<>(
              List.of(
                  binary().toString(),
                  "server",
                  "start-dev",
                  "--headless",
                  "--ip",
                  "127.0.0.1",
                  "--port",
                  Integer.toString(port),
                  "--http-port",
                  Integer.toString(HubTestSupport.freePort()),
                  "--metrics-port",
                  Integer.toString(HubTestSupport.freePort()),
                  "--db-filename",
                  dir.resolve("temporal.db").toString(),
                  "--log-level",
                  "error"));
      command.addAll(repositoryOptions());
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      TemporalDevServer server = new TemporalDevServer(p, port, log);
      server.awaitReady();
      return server;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the Temporal dev server", e);
    }
  }

  public String address() {
    return "127.0.0.1:" + port;
  }

  private void awaitReady() throws IOException {
    Instant deadline = Instant.now().plus(STARTUP);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the Temporal dev server exited:\n" + Files.readString(log));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        // The frontend accepts connections a moment before the default namespace is ready.
        Thread.sleep(1500);
        return;
      } catch (IOException notYet) {
        sleep();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    close();
    throw new IllegalStateException("the Temporal dev server did not listen within " + STARTUP);
  }

  private static void sleep() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The options make run gives its dev server: tools/dev/temporal-dev-options. */
  static List<String> repositoryOptions() throws IOException {
    Path file = OpaTestServer.repoRoot().resolve("tools/dev/temporal-dev-options");
    return Files.readAllLines(file).stream()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .toList();
  }

  static Path binary() {
    String env = System.getenv("GITOPSHQ_TEMPORAL_BIN");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    Path root = OpaTestServer.repoRoot();
    try {
      Process p =
          new ProcessBuilder(root.resolve("tools/bin-path.sh").toString(), "temporal").start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      if (p.waitFor() == 0 && !out.isEmpty()) {
        return Path.of(out);
      }
    } catch (IOException e) {
      // Fall through to the message below.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new IllegalStateException(
        "no temporal binary: run 'tools/build-tools.sh temporal' (make test does) or set GITOPSHQ_TEMPORAL_BIN");
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}

package dev.gitopshq.hub.process;

import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The hub as production runs it: {@code java -Xmx512m -jar api/target/gitopshq-hub.jar} in its own
 * process, configured only through environment variables, on fixed HTTP and gRPC ports that survive
 * a restart. {@link #kill()} is {@code kill -9} (the JVM gets no chance to clean up), {@link
 * #stop()} is SIGTERM. Output goes to a log file that {@link LogsOnFailure} prints when a test
 * fails; every process still alive when the test JVM exits is killed.
 */
public final class HubProcess implements AutoCloseable {
  private static final Duration HEALTHY_WITHIN = Duration.ofSeconds(120);
  private static final int LOG_TAIL_LINES = 150;
  private static final List<HubProcess> ALL = new CopyOnWriteArrayList<>();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> ALL.forEach(h -> h.destroy(true)), "hub-process-reaper"));
  }

  private final String name;
  private final Map<String, String> env;
  private final int httpPort;
  private final int grpcPort;
  private final Path log;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private volatile Process process;

  /**
   * @param name the replica id, also the log file's name
   * @param backends what every replica shares
   * @param extraEnv more environment variables (they win over the defaults)
   */
  public HubProcess(String name, SharedBackends backends, Map<String, String> extraEnv) {
    this.name = name;
    try {
      this.httpPort = HubTestSupport.freePort();
      this.grpcPort = HubTestSupport.freePort();
      this.log = Files.createTempFile("gitopshq-" + name + "-", ".log");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    Map<String, String> e = new HashMap<>(backends.hubEnv());
    e.put("GITOPSHQ_REPLICA_ID", name);
    e.put("GITOPSHQ_HTTP_PORT", Integer.toString(httpPort));
    e.put("AGENT_GRPC_PORT", Integer.toString(grpcPort));
    e.put("AGENT_GRPC_PUBLIC_ADDRESS", grpcAddress());
    e.put("GITOPSHQ_HEARTBEAT_FLUSH_MILLIS", "200");
    e.put("GITOPSHQ_DB_POOL_SIZE", "8");
    e.putAll(extraEnv);
    this.env = Map.copyOf(e);
    ALL.add(this);
  }

  /** Starts the process (again, on the same ports) and waits until /actuator/health answers. */
  public synchronized HubProcess start() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is already running");
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    // Test-only start-up savings on a shared machine: the C1 compiler alone and the serial
    // collector cut the CPU a start costs (each test restarts the hub several times).
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    if (Runtime.version().feature() >= 24) {
      cmd.add("--sun-misc-unsafe-memory-access=allow");
      cmd.add("--enable-native-access=ALL-UNNAMED");
    }
    cmd.add("-jar");
    cmd.add(jar().toString());
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    try {
      Files.writeString(
          log,
          "==== " + Instant.now() + " starting " + name + "\n",
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.APPEND);
      process = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + name, e);
    }
    awaitHealthy();
    return this;
  }

  private void awaitHealthy() {
    Instant deadline = Instant.now().plus(HEALTHY_WITHIN);
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            name + " exited with " + process.exitValue() + " while starting:\n" + tail());
      }
      if (healthy()) {
        return;
      }
      if (Instant.now().isAfter(deadline)) {
        destroy(true);
        throw new IllegalStateException(
            name + " was not healthy within " + HEALTHY_WITHIN + ":\n" + tail());
      }
      pause(200);
    }
  }

  private boolean healthy() {
    try {
      return get("/actuator/health", null).status() == 200;
    } catch (IllegalStateException notYet) {
      return false;
    }
  }

  /** {@code kill -9}: no shutdown hook, no graceful close of streams or database sessions. */
  public void kill() {
    destroy(true);
  }

  /** SIGTERM, as Kubernetes stops a pod; SIGKILL after 30 s. */
  public void stop() {
    destroy(false);
  }

  /** kill -9, then start again on the same ports, database and data directory. */
  public HubProcess killAndRestart() {
    kill();
    return start();
  }

  private synchronized void destroy(boolean forcibly) {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    try {
      if (forcibly) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      } else {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
  }

  public boolean isAlive() {
    Process p = process;
    return p != null && p.isAlive();
  }

  @Override
  public void close() {
    stop();
  }

  public String name() {
    return name;
  }

  public String grpcAddress() {
    return "127.0.0.1:" + grpcPort;
  }

  public int grpcPort() {
    return grpcPort;
  }

  // ---- REST -----------------------------------------------------------------------------------

  public Response get(String path, String token) {
    return send("GET", path, token, null);
  }

  public Response post(String path, String token, Object body) {
    return send("POST", path, token, body);
  }

  public Response send(String method, String path, String token, Object body) {
    return HubTestSupport.send(
        http, "http://127.0.0.1:" + httpPort, method, path, token, body, Map.of());
  }

  // ---- logs -----------------------------------------------------------------------------------

  /** The last lines of this hub's log (every start appends to it). */
  public String tail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join(
          "\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e.getMessage() + ")";
    }
  }

  /** The file this hub's output goes to (every start appends to it). */
  public Path logFile() {
    return log;
  }

  /** How many lines of this hub's log (all its runs) contain {@code text}. */
  public long logLines(String text) {
    try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
      return lines.filter(l -> l.contains(text)).count();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Prints the tail of every hub process's log when a test fails. */
  public static final class LogsOnFailure implements TestWatcher {
    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
      for (HubProcess h : ALL) {
        System.err.println("---- last lines of " + h.name + " (" + h.log + ") ----");
        System.err.println(h.tail());
      }
    }
  }

  /** The hub jar Maven's package phase builds ahead of the integration tests. */
  static Path jar() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      for (Path candidate :
          List.of(
              dir.resolve("target/gitopshq-hub.jar"), dir.resolve("api/target/gitopshq-hub.jar"))) {
        if (Files.isRegularFile(candidate)) {
          return candidate;
        }
      }
    }
    throw new IllegalStateException(
        "no api/target/gitopshq-hub.jar: build it with tools/mvn.sh -q -pl api package -DskipTests"
            + " (mvn verify packages it before the integration tests)");
  }

  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

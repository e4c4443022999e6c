package dev.gitopshq.activities.render;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.activities.metrics.Meters;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool of render worker processes ({@code tools/render-worker}, Helm's template engine and
 * nothing else of Helm), where every Helm chart the hub renders is rendered. Helm's Go code never
 * runs in the JVM: its memory is the worker's, bounded, and a render that runs away is killed with
 * its process.
 *
 * <p>Protocol: length-prefixed frames (4-byte big-endian length, then JSON) on the worker's stdin
 * and stdout, one request and its response at a time per process. A request carries the chart
 * archive (left out when the process holds that chart from its previous request), the release name
 * and namespace and the values; the response is the manifest as {@code helm template} prints it, or
 * Helm's error and whether the chart did not load or did not render. The worker starts with an
 * empty environment (no KUBECONFIG, no HOME) and has no Kubernetes client: a template's {@code
 * lookup}, also one reached through {@code tpl}, finds nothing.
 *
 * <p>Limits ({@link Config}, from the environment): at most {@code workers} processes, one render
 * each at a time (a render waits up to the deadline for one); a render that takes longer than the
 * deadline is failed and its process killed; a process whose resident memory passes the memory
 * limit exits (its own watchdog, with Go's soft limit below it and an address-space ceiling above)
 * or is killed from here (its RSS is read from /proc every 100 ms while it renders); a process is
 * replaced after {@code rendersPerWorker} renders. A killed or crashed worker fails only its own
 * render, naming the limit; the next render starts a new process.
 */
public final class RenderWorkers {
  private static final Logger log = LoggerFactory.getLogger(RenderWorkers.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The worker's exit status when its memory watchdog stops it. */
  static final int EXIT_MEMORY = 3;

  /** The worker's exit status when a render passes its own deadline. */
  static final int EXIT_DEADLINE = 5;

  /**
   * How the pool is configured.
   *
   * @param binary the render-worker executable
   * @param workers the most processes (and renders at once)
   * @param timeout the longest one render may take
   * @param memoryBytes the most resident memory one process may use
   * @param rendersPerWorker renders after which a process is replaced by a fresh one
   * @param maxOutputBytes the longest manifest one render may produce
   */
  public record Config(
      Path binary,
      int workers,
      Duration timeout,
      long memoryBytes,
      int rendersPerWorker,
      int maxOutputBytes) {
    public Config {
      if (workers < 1 || rendersPerWorker < 1 || maxOutputBytes < 1 || memoryBytes < 32 << 20) {
        throw new IllegalArgumentException(
            "render workers: workers and renders per worker must be at least 1, memory at least 32"
                + " MiB");
      }
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("render workers: the deadline must be positive");
      }
    }

    /** This configuration with another deadline, memory limit and output limit (tests). */
    public Config with(Duration timeout, long memoryBytes, int maxOutputBytes) {
      return new Config(binary, workers, timeout, memoryBytes, rendersPerWorker, maxOutputBytes);
    }

    /** This configuration with another pool size and renders per worker (tests, benchmarks). */
    public Config withWorkers(int workers, int rendersPerWorker) {
      return new Config(binary, workers, timeout, memoryBytes, rendersPerWorker, maxOutputBytes);
    }

    /**
     * From environment variables, each also a system property: {@code GITOPSHQ_RENDER_WORKER_BIN}
     * ({@code gitopshq.render.workerBin}; else {@code tools/bin-path.sh render-worker} of the
     * checkout the process runs in), {@code GITOPSHQ_RENDER_WORKERS} (4), {@code
     * GITOPSHQ_RENDER_TIMEOUT_SECONDS} (30), {@code GITOPSHQ_RENDER_MEMORY_MIB} (256), {@code
     * GITOPSHQ_RENDER_WORKER_RENDERS} (1000).
     */
    public static Config fromEnvironment() {
      return new Config(
          binaryFromEnvironment(),
          (int) number("GITOPSHQ_RENDER_WORKERS", "gitopshq.render.workers", 4),
          Duration.ofSeconds(
              number("GITOPSHQ_RENDER_TIMEOUT_SECONDS", "gitopshq.render.timeoutSeconds", 30)),
          number("GITOPSHQ_RENDER_MEMORY_MIB", "gitopshq.render.memoryMib", 256) << 20,
          (int) number("GITOPSHQ_RENDER_WORKER_RENDERS", "gitopshq.render.workerRenders", 1000),
          16 * 1024 * 1024);
    }

    private static String setting(String env, String property) {
      String v = System.getProperty(property);
      if (v == null || v.isBlank()) {
        v = System.getenv(env);
      }
      return v == null || v.isBlank() ? null : v.strip();
    }

    private static long number(String env, String property, long fallback) {
      String v = setting(env, property);
      if (v == null) {
        return fallback;
      }
      try {
        long n = Long.parseLong(v);
        if (n < 1) {
          throw new NumberFormatException();
        }
        return n;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            env + " must be a positive whole number, not '" + v + "'");
      }
    }

    private static Path binaryFromEnvironment() {
      String v = setting("GITOPSHQ_RENDER_WORKER_BIN", "gitopshq.render.workerBin");
      if (v != null) {
        return Path.of(v);
      }
      for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
        Path script = d.resolve("tools/bin-path.sh");
        if (Files.isExecutable(script) && Files.isDirectory(d.resolve("tools/render-worker"))) {
          try {
            Process p =
                new ProcessBuilder(script.toString(), "render-worker")
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String out =
                new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.waitFor() == 0 && !out.isEmpty()) {
              return Path.of(out);
            }
          } catch (IOException e) {
            break;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          }
          break;
        }
      }
      return null;
    }
  }

  /** What one render gave: the manifest, or Helm's error. */
  public sealed interface Outcome {}

  /** Helm printed this manifest. */
  public record Rendered(String manifest) implements Outcome {}

  /**
   * Helm refused: {@code loads} false when the chart itself does not load (not a chart, a broken
   * Chart.yaml), true when it loads but does not render.
   */
  public record Failed(boolean loads, String message) implements Outcome {}

  /** A render that passed a limit, or found no worker; the message names the limit. */
  public static final class LimitException extends RuntimeException {
    private final String reason;

    LimitException(String reason, String message) {
      super(message);
      this.reason = reason;
    }

    /** timeout, memory, crashed, busy or unavailable. */
    public String reason() {
      return reason;
    }
  }

  private static volatile RenderWorkers shared;

  /** The process's pool, configured from the environment on first use. */
  public static RenderWorkers shared() {
    RenderWorkers s = shared;
    if (s == null) {
      synchronized (RenderWorkers.class) {
        s = shared;
        if (s == null) {
          s = new RenderWorkers(Config.fromEnvironment());
          shared = s;
        }
      }
    }
    return s;
  }

  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "render-worker-watch");
            t.setDaemon(true);
            return t;
          });

  private final Config config;
  private final Semaphore slots;
  private final LinkedBlockingDeque<Worker> idle = new LinkedBlockingDeque<>();
  private final Set<Worker> busy = ConcurrentHashMap.newKeySet();
  private final Set<Worker> all = ConcurrentHashMap.newKeySet();
  private final ScheduledFuture<?> memoryWatch;
  private volatile boolean closed;

  public RenderWorkers(Config config) {
    this.config = config;
    this.slots = new Semaphore(config.workers());
    this.memoryWatch =
        TIMER.scheduleWithFixedDelay(this::watchMemory, 100, 100, TimeUnit.MILLISECONDS);
  }

  public Config config() {
    return config;
  }

  /** The worker processes alive now (idle or rendering). */
  public List<Long> pids() {
    return all.stream().filter(w -> w.process.isAlive()).map(w -> w.process.pid()).toList();
  }

  /** Ends every worker process; renders after this fail. */
  public void close() {
    closed = true;
    memoryWatch.cancel(false);
    for (Worker w : all) {
      w.kill(null);
    }
  }

  /**
   * Renders one chart.
   *
   * @param digest the archive's SHA-256 (a process that holds this chart is not sent it again)
   * @param values the values, written as JSON (null: none)
   * @throws LimitException when the render passed the deadline or the memory limit, its process
   *     ended, or no process was free within the deadline
   */
  public Outcome render(
      String digest, byte[] archive, String name, String namespace, Map<String, Object> values) {
    if (closed) {
      throw new LimitException("unavailable", "the render workers are shut down");
    }
    long deadline = System.nanoTime() + config.timeout().toNanos();
    boolean slot;
    try {
      slot = slots.tryAcquire(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LimitException("busy", "interrupted while waiting for a render worker");
    }
    if (!slot) {
      Meters.helmRender("busy");
      throw new LimitException(
          "busy",
          "all "
              + config.workers()
              + " render workers were busy for the whole "
              + seconds(config.timeout())
              + " deadline; try again later");
    }
    Worker worker = null;
    try {
      worker = idle.pollFirst();
      while (worker != null && !worker.process.isAlive()) {
        all.remove(worker);
        worker = idle.pollFirst();
      }
      if (worker == null) {
        worker = start();
      }
      byte[] request = request(worker, digest, archive, name, namespace, values);
      Outcome outcome = worker.call(request, digest, deadline);
      Meters.helmRender(outcome instanceof Rendered ? "ok" : "failed");
      if (++worker.renders >= config.rendersPerWorker()) {
        worker.retire();
      } else {
        idle.addFirst(worker);
      }
      worker = null;
      return outcome;
    } catch (LimitException e) {
      Meters.helmRender(e.reason());
      throw e;
    } finally {
      if (worker != null) {
        worker.kill(null);
      }
      slots.release();
    }
  }

  private byte[] request(
      Worker worker,
      String digest,
      byte[] archive,
      String name,
      String namespace,
      Map<String, Object> values) {
    ObjectNode r = JSON.createObjectNode();
    if (!digest.equals(worker.chartDigest)) {
      r.put("chart", archive);
    }
    r.put("name", name);
    r.put("namespace", namespace);
    r.set("values", JSON.valueToTree(values == null ? Map.of() : values));
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(r);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write a render request", e);
    }
    if (bytes.length > maxFrame()) {
      throw new LimitException(
          "failed",
          "the chart and values make a request of "
              + bytes.length
              + " bytes, more than the "
              + maxFrame()
              + " a render worker reads");
    }
    return bytes;
  }

  private int maxFrame() {
    return 32 * 1024 * 1024;
  }

  private Worker start() {
    if (config.binary() == null || !Files.isExecutable(config.binary())) {
      throw new LimitException(
          "unavailable",
          "no render worker executable "
              + (config.binary() == null ? "" : "at " + config.binary() + " ")
              + "(set GITOPSHQ_RENDER_WORKER_BIN; tools/build-tools.sh render-worker builds it)");
    }
    ProcessBuilder pb =
        new ProcessBuilder(
            config.binary().toString(),
            "-memory-limit",
            Long.toString(config.memoryBytes()),
            "-max-frame",
            Integer.toString(maxFrame()),
            "-max-output",
            Integer.toString(config.maxOutputBytes()),
            // Its own deadline, a little after the hub's: a worker whose hub is gone ends too.
            "-deadline",
            (config.timeout().toMillis() + 5000) + "ms");
    // Nothing of the hub's environment: no KUBECONFIG, HOME, proxies or credentials. A fatal
    // error (out of memory) prints its one line, not every goroutine's stack.
    pb.environment().clear();
    pb.environment().put("GOTRACEBACK", "none");
    pb.directory(Path.of("/").toFile());
    try {
      Worker w = new Worker(pb.start());
      all.add(w);
      Meters.renderWorkerStarted();
      return w;
    } catch (IOException e) {
      throw new LimitException(
          "unavailable",
          "cannot start the render worker " + config.binary() + ": " + e.getMessage());
    }
  }

  private void watchMemory() {
    long limit = config.memoryBytes() + (32L << 20);
    for (Worker w : busy) {
      long rss = rss(w.process.pid());
      if (rss > limit) {
        w.kill("memory");
      }
    }
  }

  /** The resident memory of a process in bytes, from /proc; -1 when unknown. */
  static long rss(long pid) {
    try {
      String[] f = Files.readString(Path.of("/proc/" + pid + "/statm")).trim().split("\\s+");
      return Long.parseLong(f[1]) * 4096;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private String seconds(Duration d) {
    return d.toMillis() < 1000 ? d.toMillis() + " ms" : d.toSeconds() + " s";
  }

  private String mib(long bytes) {
    return (bytes >> 20) + " MiB";
  }

  /** One worker process. */
  private final class Worker {
    final Process process;
    final DataOutputStream in;
    final DataInputStream out;
    final StringBuilder stderr = new StringBuilder();
    String chartDigest;
    int renders;
    volatile String killReason;

    Worker(Process process) {
      this.process = process;
      this.in = new DataOutputStream(new BufferedOutputStream(process.getOutputStream(), 1 << 16));
      this.out = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
      Thread drain = new Thread(this::drain, "render-worker-stderr-" + process.pid());
      drain.setDaemon(true);
      drain.start();
    }

    /** Keeps the last 2 KB of what the process writes to stderr (Helm's warnings, its exit). */
    private void drain() {
      byte[] buf = new byte[4096];
      try (InputStream err = process.getErrorStream()) {
        int n;
        while ((n = err.read(buf)) > 0) {
          synchronized (stderr) {
            stderr.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            if (stderr.length() > 2048) {
              stderr.delete(0, stderr.length() - 2048);
            }
          }
        }
      } catch (IOException e) {
        // the process ended
      }
    }

    String lastError() {
      synchronized (stderr) {
        String[] lines = stderr.toString().strip().split("\n");
        return lines[lines.length - 1].strip();
      }
    }

    Outcome call(byte[] request, String digest, long deadline) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw timeout();
      }
      ScheduledFuture<?> kill = TIMER.schedule(() -> kill("timeout"), left, TimeUnit.NANOSECONDS);
      busy.add(this);
      try {
        chartDigest = null;
        in.writeInt(request.length);
        in.write(request);
        in.flush();
        int n = out.readInt();
        long maxResponse = 6L * config.maxOutputBytes() + (1 << 16);
        if (n < 0 || n > maxResponse) {
          kill("crashed");
          throw new LimitException(
              "crashed", "the render worker answered with a frame of " + n + " bytes");
        }
        byte[] body = out.readNBytes(n);
        if (body.length != n) {
          throw new IOException("the render worker's answer ended early");
        }
        JsonNode r = JSON.readTree(body);
        chartDigest = digest;
        if (r.hasNonNull("error")) {
          String stage = r.path("stage").asText("");
          if (stage.equals("protocol")) {
            kill("crashed");
            throw new LimitException(
                "crashed", "the render worker refused the request: " + r.get("error").asText());
          }
          return new Failed(!stage.equals("load"), r.get("error").asText());
        }
        return new Rendered(r.path("manifest").asText(""));
      } catch (IOException e) {
        throw died();
      } finally {
        busy.remove(this);
        kill.cancel(false);
      }
    }

    private LimitException timeout() {
      kill("timeout");
      return new LimitException(
          "timeout",
          "Helm did not finish within the "
              + seconds(config.timeout())
              + " deadline of a render (a chart that loops or prints without end?); its render"
              + " worker was killed");
    }

    /** Why the process stopped answering, naming the limit it passed. */
    private LimitException died() {
      String reason = killReason;
      if (reason == null) {
        try {
          process.waitFor(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      reason = killReason;
      kill(null);
      if ("timeout".equals(reason)
          || (!process.isAlive() && process.exitValue() == EXIT_DEADLINE)) {
        return timeout();
      }
      String last = lastError();
      String tail;
      synchronized (stderr) {
        tail = stderr.toString();
      }
      boolean memory =
          "memory".equals(reason)
              || (!process.isAlive() && process.exitValue() == EXIT_MEMORY)
              || tail.contains("out of memory")
              || tail.contains("cannot allocate memory");
      if (memory) {
        return new LimitException(
            "memory",
            "the render used more than the "
                + mib(config.memoryBytes())
                + " memory limit of a render worker; the worker was killed");
      }
      return new LimitException(
          "crashed",
          "the render worker ended during the render"
              + (process.isAlive() ? "" : " (exit status " + process.exitValue() + ")")
              + (last.isEmpty() ? "" : ": " + last));
    }

    /** Kills the process (reason: why, for the render waiting on it; null: none). */
    void kill(String reason) {
      if (reason != null && killReason == null) {
        killReason = reason;
      }
      all.remove(this);
      idle.remove(this);
      process.destroyForcibly();
    }

    /** Ends the process after its last render: end of input, then a kill if it lingers. */
    void retire() {
      all.remove(this);
      try {
        in.close();
      } catch (IOException e) {
        // already gone
      }
      TIMER.schedule(
          () -> {
            if (process.isAlive()) {
              log.debug("render worker {} did not exit after its last render", process.pid());
              process.destroyForcibly();
            }
          },
          5,
          TimeUnit.SECONDS);
    }
  }
}

package dev.gitopshq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Benchmark 1: end-to-end latency of auto-approved scale commands through a running hub (REST ->
 * command workflow -> OPA -> PostgreSQL -> agent over gRPC -> Kubernetes API -> result), next to a
 * Temporal workflow with one no-op activity on the same Temporal server.
 *
 * <p>Commands run one at a time. Each one is timed from just before its {@code POST} until a {@code
 * GET /api/v2/commands/{id}} first shows {@code completed} (polled every {@code --poll-ms}); the
 * server-side latency {@code createdAt -> finishedAt} of the same command and the gaps between its
 * timeline events are reported as well, since they do not depend on the polling.
 *
 * <p>The stack (hub, agent, cluster, approval policy binding, a member's token) is prepared by
 * {@code bench/run-command-latency.sh}; this program only measures. Token: {@code BENCH_HUB_TOKEN}.
 */
public final class CommandLatencyBench {
  private static final Set<String> UNSUCCESSFUL =
      Set.of("failed", "rejected", "expired", "cancelled");

  private static final String USAGE =
      """
      usage: java -cp gitopshq-bench.jar dev.gitopshq.bench.CommandLatencyBench \\
               --hub-url URL --cluster-id ID --temporal-address HOST:PORT --out FILE \\
               [--namespace default] [--commands 200] [--warmup 20] [--poll-ms 5] \\
               [--timeout-seconds 30]
      environment: BENCH_HUB_TOKEN  API token of a member (role member or higher)
      Normally started by bench/run-command-latency.sh, which brings up the stack.""";

  /** One measured command. */
  record Sample(
      long endToEndNanos,
      long postNanos,
      double serverMs,
      int polls,
      Map<String, Double> stagesMs) {}

  private final JsonHttp hub;
  private final String clusterId;
  private final int pollMs;
  private final Duration timeout;

  private CommandLatencyBench(JsonHttp hub, String clusterId, int pollMs, Duration timeout) {
    this.hub = hub;
    this.clusterId = clusterId;
    this.pollMs = pollMs;
    this.timeout = timeout;
  }

  public static void main(String[] argv) {
    Args.main(argv, USAGE, CommandLatencyBench::run);
  }

  private static void run(Args a) {
    String hubUrl = a.required("hub-url");
    String clusterId = a.required("cluster-id");
    String temporalAddress = a.required("temporal-address");
    Path out = Path.of(a.required("out"));
    String namespace = a.get("namespace", "default");
    int n = a.intValue("commands", 200, 1);
    int warmup = a.intValue("warmup", 20, 0);
    int pollMs = a.intValue("poll-ms", 5, 1);
    int timeoutSeconds = a.intValue("timeout-seconds", 30, 1);
    a.rejectUnknown();
    String token = Args.env("BENCH_HUB_TOKEN");
    Report report = new Report("command-latency");

    System.out.printf(
        Locale.ROOT,
        "%d warm-up + %d measured rounds, each a Temporal no-op workflow (one no-op activity) on %s%n"
            + "and an auto-approved scale command on cluster %s via %s (poll every %d ms)%n",
        warmup,
        n,
        temporalAddress,
        clusterId,
        hubUrl,
        pollMs);
    // One no-op workflow and one command per round, so a noisy moment hits both alike.
    long[] noop = new long[n];
    List<Sample> samples = new ArrayList<>(n);
    try (NoopBaseline baseline = new NoopBaseline(temporalAddress, namespace);
        JsonHttp http = new JsonHttp(hubUrl, token)) {
      CommandLatencyBench bench =
          new CommandLatencyBench(http, clusterId, pollMs, Duration.ofSeconds(timeoutSeconds));
      for (int i = 0; i < warmup; i++) {
        baseline.roundTrip();
        bench.runOne(i);
      }
      for (int i = 0; i < n; i++) {
        noop[i] = baseline.roundTrip();
        samples.add(bench.runOne(warmup + i));
        if ((i + 1) % 50 == 0 && i + 1 < n) {
          System.out.printf(Locale.ROOT, "  %d/%d rounds%n", i + 1, n);
        }
      }
    }
    Stats noopStats = Stats.ofNanos(noop);
    // Sequential runs: throughput is the number of round trips over the time they took.
    double noopPerSecond = n / (sum(noop) / 1e9);

    long[] e2e = samples.stream().mapToLong(Sample::endToEndNanos).toArray();
    long[] post = samples.stream().mapToLong(Sample::postNanos).toArray();
    double[] server = samples.stream().mapToDouble(Sample::serverMs).toArray();
    Stats e2eStats = Stats.ofNanos(e2e);
    Stats serverStats = Stats.ofMillis(server);
    Stats postStats = Stats.ofNanos(post);
    double commandsPerSecond = n / (sum(e2e) / 1e9);
    double polls = samples.stream().mapToInt(Sample::polls).average().orElse(0);
    Map<String, Stats> stages = stages(samples);

    System.out.println();
    System.out.printf(
        Locale.ROOT, "Command latency (%d sequential auto-approved scale commands)%n", n);
    System.out.print(
        Table.forStats("measure")
            .stats("end to end: POST -> completed seen by GET", e2eStats)
            .stats("server: createdAt -> finishedAt", serverStats)
            .stats("POST /commands until 202", postStats));
    System.out.printf(
        Locale.ROOT,
        "  throughput %.1f commands/s sequential; %.1f GETs per command (poll every %d ms)%n%n",
        commandsPerSecond,
        polls,
        pollMs);
    System.out.println("Where the server-side time goes (gaps between timeline events)");
    Table stageTable = Table.forStats("stage");
    stages.forEach(stageTable::stats);
    System.out.print(stageTable);
    System.out.println();
    System.out.printf(
        Locale.ROOT, "Temporal no-op baseline (%d sequential workflows, one no-op activity)%n", n);
    System.out.print(Table.forStats("measure").stats("start + getResult", noopStats));
    System.out.printf(Locale.ROOT, "  throughput %.1f workflows/s sequential%n%n", noopPerSecond);

    Map<String, Object> ratios = new LinkedHashMap<>();
    ratios.put("endToEndP50", ratio(e2eStats.p50(), noopStats.p50()));
    ratios.put("endToEndP99", ratio(e2eStats.p99(), noopStats.p99()));
    ratios.put("serverP50", ratio(serverStats.p50(), noopStats.p50()));
    ratios.put("serverP99", ratio(serverStats.p99(), noopStats.p99()));
    System.out.println("Command vs no-op workflow");
    System.out.print(
        new Table(
                "",
                "command e2e",
                "command server",
                "no-op workflow",
                "e2e / no-op",
                "server / no-op")
            .row(
                "p50 ms",
                e2eStats.p50(),
                serverStats.p50(),
                noopStats.p50(),
                x(ratios.get("endToEndP50")),
                x(ratios.get("serverP50")))
            .row(
                "p99 ms",
                e2eStats.p99(),
                serverStats.p99(),
                noopStats.p99(),
                x(ratios.get("endToEndP99")),
                x(ratios.get("serverP99")))
            .row("per second", fmt1(commandsPerSecond), "", fmt1(noopPerSecond), "", ""));

    Map<String, Object> params = new LinkedHashMap<>();
    params.put("commands", n);
    params.put("warmup", warmup);
    params.put("pollMs", pollMs);
    params.put("hubUrl", hubUrl);
    params.put("temporalAddress", temporalAddress);
    params.put("noopTaskQueue", NoopBaseline.TASK_QUEUE);
    Map<String, Object> command = new LinkedHashMap<>();
    command.put("endToEnd", e2eStats.toMap());
    command.put("server", serverStats.toMap());
    command.put("post", postStats.toMap());
    command.put("throughputPerSecond", round1(commandsPerSecond));
    command.put("getsPerCommand", round1(polls));
    Map<String, Object> stageMaps = new LinkedHashMap<>();
    stages.forEach((k, v) -> stageMaps.put(k, v.toMap()));
    command.put("stages", stageMaps);
    Map<String, Object> baseline = new LinkedHashMap<>();
    baseline.put("roundTrip", noopStats.toMap());
    baseline.put("throughputPerSecond", round1(noopPerSecond));
    Map<String, Object> raw = new LinkedHashMap<>();
    raw.put("commandEndToEnd", Report.millis(e2e));
    raw.put("commandServer", server);
    raw.put("commandPost", Report.millis(post));
    raw.put("noopRoundTrip", Report.millis(noop));
    report
        .put("parameters", params)
        .put("command", command)
        .put("noopBaseline", baseline)
        .put("ratios", ratios)
        .put("samplesMs", raw)
        .write(out);
    System.out.println();
    System.out.println("JSON: " + out);
  }

  /** Requests one scale command and waits until it completed; alternates 3 and 2 replicas. */
  private Sample runOne(int i) {
    Map<String, Object> body =
        Map.of(
            "type",
            "scale",
            "target",
            Map.of("namespace", "demo", "kind", "Deployment", "name", "web"),
            "params",
            Map.of("replicas", i % 2 == 0 ? 3 : 2),
            "reason",
            "benchmark");
    byte[] json = JsonHttp.bytes(body);
    long t0 = System.nanoTime();
    JsonHttp.Response created = hub.post("/api/v2/clusters/" + clusterId + "/commands", json);
    long postNanos = System.nanoTime() - t0;
    String id =
        created.expect(202, "POST /api/v2/clusters/" + clusterId + "/commands").path("id").asText();
    long deadline = t0 + timeout.toNanos();
    int polls = 0;
    while (true) {
      JsonHttp.Response r = hub.get("/api/v2/commands/" + id);
      long seen = System.nanoTime();
      polls++;
      JsonNode detail = r.expect(200, "GET /api/v2/commands/" + id);
      String status = detail.path("status").asText();
      if (status.equals("completed")) {
        return new Sample(seen - t0, postNanos, serverMillis(detail), polls, stageMillis(detail));
      }
      if (UNSUCCESSFUL.contains(status) || status.equals("pending_approval")) {
        throw new IllegalStateException(
            "command "
                + id
                + " is "
                + status
                + " ("
                + detail.path("statusDetail").asText()
                + detail.path("error").asText()
                + "); the benchmark needs scale to be"
                + " auto-approved and the agent connected with kubernetes.scale");
      }
      if (seen > deadline) {
        throw new IllegalStateException(
            "command "
                + id
                + " did not complete within "
                + timeout.toSeconds()
                + " s (last status "
                + status
                + ": "
                + detail.path("statusDetail").asText()
                + ")");
      }
      sleep(pollMs);
    }
  }

  private static double serverMillis(JsonNode detail) {
    Instant created = Instant.parse(detail.path("createdAt").asText());
    Instant finished = Instant.parse(detail.path("finishedAt").asText());
    return Duration.between(created, finished).toNanos() / 1e6;
  }

  /**
   * The gaps between consecutive timeline events, named after the events: {@code accepted} is the
   * command's {@code createdAt}, the event whose actor is the policy is {@code decided}, the others
   * go by their status.
   */
  private static Map<String, Double> stageMillis(JsonNode detail) {
    Map<String, Double> out = new LinkedHashMap<>();
    String previous = "accepted";
    Instant at = Instant.parse(detail.path("createdAt").asText());
    for (JsonNode e : detail.path("timeline")) {
      String name =
          e.path("actor").asText().startsWith("policy ") ? "decided" : e.path("status").asText();
      Instant next = Instant.parse(e.path("at").asText());
      out.merge(previous + " -> " + name, Duration.between(at, next).toNanos() / 1e6, Double::sum);
      previous = name;
      at = next;
    }
    return out;
  }

  private static Map<String, Stats> stages(List<Sample> samples) {
    Map<String, List<Double>> byStage = new LinkedHashMap<>();
    for (Sample s : samples) {
      s.stagesMs().forEach((k, v) -> byStage.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
    }
    Map<String, Stats> out = new LinkedHashMap<>();
    byStage.forEach(
        (k, v) ->
            out.put(k, Stats.ofMillis(v.stream().mapToDouble(Double::doubleValue).toArray())));
    return out;
  }

  private static double sum(long[] v) {
    double s = 0;
    for (long x : v) {
      s += x;
    }
    return s;
  }

  private static double ratio(double a, double b) {
    return Math.round(a / b * 100.0) / 100.0;
  }

  private static double round1(double v) {
    return Math.round(v * 10.0) / 10.0;
  }

  private static String x(Object ratio) {
    return String.format(Locale.ROOT, "%.2fx", (Double) ratio);
  }

  private static String fmt1(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  private static void sleep(int ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}

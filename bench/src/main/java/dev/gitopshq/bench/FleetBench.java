package dev.gitopshq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentStatus;
import dev.gitopshq.agent.v1.Heartbeat;
import dev.gitopshq.agent.v1.RegisterResponse;
import io.grpc.Status;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 12's fleet measurements P1 and P2: {@code --agents} simulated agents, each on its own TLS
 * connection (one Netty channel per agent, as real agents have), against two servers in separate
 * JVMs with the same heap limit: the hub's gateway and {@link EchoHub}, the bare grpc-java server
 * with the same certificate and Netty settings.
 *
 * <p>For each server, in turn:
 *
 * <ol>
 *   <li>heap after a full GC ({@code jcmd GC.run}) and RSS before any agent;
 *   <li>the agents connect: for the hub each is a real cluster (REST), registers with its
 *       registration token and connects with the agent token it got; Hello, Welcome;
 *   <li>heap after GC and RSS with every stream open: the difference per agent is P2;
 *   <li>open loop: heartbeats (with an AgentStatus, as the agent sends them) at {@code --rate} per
 *       second spread over the agents for {@code --seconds}; the achieved rate and the heartbeat's
 *       round trip to its HeartbeatAck (p50, p99) are P1's target check;
 *   <li>saturation: every agent keeps one heartbeat outstanding for {@code --seconds}; the ack rate
 *       is the most the server sustains here, and the hub's divided by the echo server's is P1's
 *       ratio.
 * </ol>
 *
 * With several server processes behind one address ({@code --hub-pid hub-1=<pid>,hub-2=<pid>} and
 * {@code --haproxy-stats}: the replicas of bench/run-fleet-ha.sh behind HAProxy) memory is measured
 * in every replica, summed and per replica, and the agents' spread is HAProxy's sessions per
 * server; {@code --save-agents} keeps the clusters' agent tokens so that a second run ({@code
 * --agents-from}) connects the same agents without registering them again, and {@code
 * --compare-with} adds an earlier run's results and the ratios to the table and the report. With
 * {@code --register-only 1} the run only creates and registers the clusters and saves their tokens
 * (the fleet's set-up, so that every measured run only connects). {@code --grpc} and {@code
 * --haproxy-stats} take several addresses, comma separated: agents spread over several load
 * balancers in turn (one HAProxy holds two file descriptors per agent).
 *
 * <p>Everything is on loopback and bounded by the options and deadlines.
 */
public final class FleetBench {
  private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");
  private static final int MAX_SAMPLES = 4_000_000;

  private FleetBench() {}

  /** One simulated agent: its channel, its stream and its heartbeats in flight. */
  static final class FleetAgent extends SimAgent {
    final Recorder rec;
    final Map<Long, Long> inFlight = new ConcurrentHashMap<>();
    final AtomicLong sequence = new AtomicLong();
    volatile long lastRttMillis;
    volatile long lastBeatNanos = System.nanoTime();

    /** Connect attempts since the storm began. */
    final AtomicInteger attempts = new AtomicInteger();

    /** Whether the stream is open and welcomed (flips on Welcome and on a stream failure). */
    volatile boolean connected;

    volatile boolean welcomedOnce;

    /** Counted down at the first Welcome. */
    final CountDownLatch firstWelcome = new CountDownLatch(1);

    /** During a storm: when this agent's stream failed first, and when it was welcomed again. */
    volatile long lostNanos;

    volatile long welcomedBackNanos;

    FleetAgent(String name, Recorder rec) {
      super(name, 30);
      this.rec = rec;
    }

    @Override
    void welcomed() {
      Storm storm = rec.storm;
      boolean was = connected;
      connected = true;
      if (storm != null) {
        if (!was) {
          welcomedBackNanos = System.nanoTime();
          storm.down.decrementAndGet();
        }
      } else if (!welcomedOnce) {
        welcomedOnce = true;
        rec.welcomed.countDown();
        firstWelcome.countDown();
      }
    }

    @Override
    void acked(long seq) {
      rec.ack(this, seq);
    }

    /**
     * When the stream fails, it tries again after the agent's backoff (full jitter from 1 s, capped
     * at 60 s), as HubLink does; during a storm each attempt is counted.
     */
    @Override
    void failed(Throwable e) {
      Storm storm = rec.storm;
      boolean was = connected;
      connected = false;
      if (storm == null) {
        if (!rec.ending) {
          // As the agent does: connect again after its backoff (a busy hub answers
          // UNAVAILABLE when its database pool is exhausted).
          long delay = backoff.next().toMillis();
          System.err.println("stream of " + name + " ended: " + e + "; again in " + delay + " ms");
          CompletableFuture.runAsync(
              () -> {
                if (!rec.ending && rec.storm == null) {
                  open();
                }
              },
              CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
        }
        return;
      }
      storm.errors.merge(Status.fromThrowable(e).getCode().name(), 1, Integer::sum);
      if (was) {
        // This agent's stream went with the server that was killed (with several
        // replicas, only the agents it held).
        if (lostNanos == 0) {
          lostNanos = System.nanoTime();
          storm.lost.incrementAndGet();
        }
        storm.down.incrementAndGet();
      }
      long delay = backoff.next().toMillis();
      storm.timer.schedule(
          () -> {
            attempts.incrementAndGet();
            storm.attemptAt(System.nanoTime());
            if (storm.resetChannelBackoff) {
              channel.resetConnectBackoff();
            }
            open();
          },
          delay,
          TimeUnit.MILLISECONDS);
    }

    /** Sends the next heartbeat, with an AgentStatus as the agent sends it. */
    synchronized void beat() {
      long seq = sequence.incrementAndGet();
      long now = System.nanoTime();
      lastBeatNanos = now;
      inFlight.put(seq, now);
      Instant t = Instant.now();
      send(
          AgentMessage.newBuilder()
              .setHeartbeat(
                  Heartbeat.newBuilder()
                      .setSequence(seq)
                      .setSentAt(
                          Timestamp.newBuilder()
                              .setSeconds(t.getEpochSecond())
                              .setNanos(t.getNano()))
                      .setStatus(
                          AgentStatus.newBuilder()
                              .setHeapUsedBytes(64L << 20)
                              .setHeapMaxBytes(128L << 20)
                              .setInventoryObjects(1_200)
                              .setInventorySynced(true)
                              .setHeartbeatRttMillis(lastRttMillis)))
              .build());
    }
  }

  /** What one phase of heartbeats measured. */
  record Phase(long sent, long acked, double seconds, long[] rttNanos) {
    double ackRate() {
      return acked / seconds;
    }
  }

  /**
   * Where the agents connect and which server processes are measured: one (the hub, the echo
   * server) or the replicas behind a load balancer, by name ({@code hub-1}, as HAProxy names its
   * servers). {@code hubUrl} is null for the echo server; {@code statsUrl}, HAProxy's statistics
   * page (several, comma separated, for several HAProxies), is null without HAProxy.
   */
  record Target(
      String label, String address, Map<String, Long> pids, String hubUrl, String statsUrl) {
    /**
     * Where agent {@code i} connects: {@code address} names one host:port, or several (comma
     * separated: load balancers in front of the same replicas), taken in turn.
     */
    String[] addressOf(int i) {
      String[] all = address.split(",");
      return all[i % all.length].trim().split(":");
    }
  }

  /** The latencies of one phase, collected from the channels' threads. */
  static final class Recorder {
    final long[] samples = new long[MAX_SAMPLES];
    final AtomicInteger n = new AtomicInteger();
    final AtomicLong acked = new AtomicLong();
    volatile boolean on;
    volatile boolean ending;
    volatile FleetAgent[] closedLoop;
    volatile CountDownLatch welcomed;
    volatile Storm storm;

    void ack(FleetAgent a, long seq) {
      Long sent = a.inFlight.remove(seq);
      if (sent == null) {
        return;
      }
      long rtt = System.nanoTime() - sent;
      a.lastRttMillis = rtt / 1_000_000;
      if (on) {
        acked.incrementAndGet();
        int i = n.getAndIncrement();
        if (i < samples.length) {
          samples[i] = rtt;
        }
        if (closedLoop != null) {
          a.beat();
        }
      }
    }

    long[] take() {
      return Arrays.copyOf(samples, Math.min(n.get(), samples.length));
    }
  }

  /** The run's options, shared by every target. */
  record Options(
      int agents,
      int rate,
      int seconds,
      int parallel,
      String jcmd,
      Path stormDir,
      boolean stormRestart,
      boolean resetChannelBackoff,
      int soakMinutes,
      int soakRate,
      Path saveAgents,
      Path agentsFrom) {}

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    int agents = Math.min(20_000, args.intValue("agents", 1_000, 1));
    int rate = Math.min(100_000, args.intValue("rate", 3_400, 1));
    int seconds = Math.min(600, args.intValue("seconds", 20, 1));
    int parallel = Math.min(64, args.intValue("register-parallelism", 16, 1));
    File ca = new File(args.required("ca"));
    String jcmd = args.required("jcmd");
    List<Target> targets = new ArrayList<>();
    String echoAddress = args.get("echo", "");
    if (!echoAddress.isEmpty()) {
      targets.add(
          new Target(
              "echo server",
              echoAddress,
              Map.of("echo", Long.parseLong(args.required("echo-pid"))),
              null,
              null));
    }
    Target hub =
        new Target(
            args.get("label", "hub"),
            args.required("grpc"),
            pids(args.required("hub-pid")),
            args.required("hub-url"),
            blankToNull(args.get("haproxy-stats", "")));
    targets.add(hub);
    Path out = Path.of(args.required("out"));
    String stormArg = args.get("storm-dir", "");
    String saveArg = args.get("save-agents", "");
    String fromArg = args.get("agents-from", "");
    String compareArg = args.get("compare-with", "");
    Options o =
        new Options(
            agents,
            rate,
            seconds,
            parallel,
            jcmd,
            stormArg.isEmpty() ? null : Path.of(stormArg),
            args.intValue("storm-restart", 1, 0) == 1,
            args.intValue("reset-channel-backoff", 1, 0) == 1,
            Math.min(240, args.intValue("soak-minutes", 0, 0)),
            Math.min(100_000, args.intValue("soak-rate", 500, 1)),
            saveArg.isEmpty() ? null : Path.of(saveArg),
            fromArg.isEmpty() ? null : Path.of(fromArg));
    boolean registerOnly = args.intValue("register-only", 0, 0) == 1;
    args.rejectUnknown();

    SimChannels channels = new SimChannels(ca);
    Report report = new Report("fleet");
    report.put(
        "parameters",
        Map.of(
            "agents",
            agents,
            "rate",
            rate,
            "seconds",
            seconds,
            "tls",
            true,
            "target",
            hub.label(),
            "replicas",
            hub.pids().size(),
            "throughHaproxy",
            hub.statsUrl() != null));
    if (registerOnly) {
      try (channels) {
        register(hub, o, channels, report);
      }
      report.write(out);
      System.out.println("written to " + out);
      return;
    }
    Map<String, Map<String, Object>> results = new LinkedHashMap<>();
    try (channels) {
      for (Target t : targets) {
        results.put(t.label(), measure(t, o, channels));
      }
    }

    Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
    Map<String, Object> baseline = null;
    if (!compareArg.isEmpty()) {
      JsonNode before = JsonHttp.JSON.readTree(Path.of(compareArg).toFile());
      var fields = before.get("results").fields();
      while (fields.hasNext()) {
        var f = fields.next();
        @SuppressWarnings("unchecked")
        Map<String, Object> m = JsonHttp.JSON.convertValue(f.getValue(), Map.class);
        rows.put(f.getKey(), m);
        baseline = m;
      }
      report.put("baseline", Map.of("file", compareArg, "results", rows));
    }
    rows.putAll(results);
    printSummary(rows);
    printReplicas(rows);
    Map<String, Object> h = results.get(hub.label());
    Map<String, Object> ratios = new LinkedHashMap<>();
    if (!echoAddress.isEmpty()) {
      Map<String, Object> e = results.get("echo server");
      double throughputRatio = num(h, "saturatedRate") / num(e, "saturatedRate");
      double memoryRatio = num(h, "heapKibPerAgent") / num(e, "heapKibPerAgent");
      System.out.printf(
          "P1: hub/echo saturated heartbeat rate %.2fx (target >= 0.5x); hub open loop %.0f hb/s"
              + " at p99 %.1f ms (target >= 3,400 hb/s, p99 < 50 ms)%n",
          throughputRatio, num(h, "openLoopRate"), num(h, "openLoopP99Ms"));
      System.out.printf(
          "P2: hub/echo heap per agent %.2fx (target <= 2x); hub heap with %d agents %.0f MiB%n",
          memoryRatio, agents, num(h, "heapMibConnected"));
      ratios.put("saturatedRateHubOverEcho", throughputRatio);
      ratios.put("heapPerAgentHubOverEcho", memoryRatio);
    }
    if (baseline != null) {
      ratios.putAll(compare(baseline, h, String.valueOf(baseline.get("label")), hub.label()));
    }
    report.put("results", results);
    report.put("ratios", ratios);
    report.write(out);
    System.out.println("written to " + out);
  }

  /** {@code 1234} (one process, named hub) or {@code hub-1=1234,hub-2=1240} (named replicas). */
  static Map<String, Long> pids(String arg) {
    Map<String, Long> pids = new LinkedHashMap<>();
    for (String part : arg.split(",")) {
      int eq = part.indexOf('=');
      if (eq < 0) {
        pids.put("hub", Long.parseLong(part.trim()));
      } else {
        pids.put(part.substring(0, eq).trim(), Long.parseLong(part.substring(eq + 1).trim()));
      }
    }
    return pids;
  }

  private static String blankToNull(String s) {
    return s.isBlank() ? null : s;
  }

  static double num(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  /** One row per measured target (and the baseline's, read from its report). */
  static void printSummary(Map<String, Map<String, Object>> rows) {
    Table table =
        new Table(
            "server",
            "replicas",
            "agents",
            "connect s",
            "heap/agent KiB",
            "RSS/agent KiB",
            "heap MiB",
            "open-loop hb/s",
            "p50 ms",
            "p99 ms",
            "saturated hb/s",
            "sat. p50 ms",
            "sat. p99 ms");
    for (var r : rows.entrySet()) {
      Map<String, Object> m = r.getValue();
      Object replicas = m.get("replicas");
      table.row(
          r.getKey(),
          replicas instanceof Map<?, ?> rep ? rep.size() : 1,
          m.get("agents"),
          m.get("connectSeconds"),
          m.get("heapKibPerAgent"),
          m.get("rssKibPerAgent"),
          m.get("heapMibConnected"),
          m.get("openLoopRate"),
          m.get("openLoopP50Ms"),
          m.get("openLoopP99Ms"),
          m.get("saturatedRate"),
          m.get("saturatedP50Ms"),
          m.get("saturatedP99Ms"));
    }
    System.out.println(table);
  }

  /** Per replica: its share of the agents (HAProxy's sessions) and its memory per agent. */
  @SuppressWarnings("unchecked")
  static void printReplicas(Map<String, Map<String, Object>> rows) {
    Table table =
        new Table(
            "server",
            "replica",
            "agents",
            "heap idle MiB",
            "heap MiB",
            "heap/agent KiB",
            "RSS idle MiB",
            "RSS MiB",
            "RSS/agent KiB");
    boolean any = false;
    for (var r : rows.entrySet()) {
      if (!(r.getValue().get("replicas") instanceof Map<?, ?> replicas) || replicas.size() < 1) {
        continue;
      }
      for (var e : ((Map<String, Map<String, Object>>) replicas).entrySet()) {
        Map<String, Object> m = e.getValue();
        any = true;
        table.row(
            r.getKey(),
            e.getKey(),
            m.get("agents"),
            round(num(m, "heapKibIdle") / 1024),
            round(num(m, "heapKibConnected") / 1024),
            m.get("heapKibPerAgent"),
            round(num(m, "rssKibIdle") / 1024),
            round(num(m, "rssKibConnected") / 1024),
            m.get("rssKibPerAgent"));
      }
    }
    if (any) {
      System.out.println(table);
    }
  }

  /** The ratios of {@code after} (e.g. three replicas) over {@code before} (one), printed too. */
  static Map<String, Object> compare(
      Map<String, Object> before, Map<String, Object> after, String b, String a) {
    String[][] keys = {
      {"saturatedRate", "saturated heartbeats/s"},
      {"saturatedP99Ms", "saturated p99"},
      {"openLoopRate", "open-loop heartbeats/s"},
      {"openLoopP50Ms", "open-loop p50"},
      {"openLoopP99Ms", "open-loop p99"},
      {"heapKibPerAgent", "heap per agent (summed over replicas)"},
      {"rssKibPerAgent", "RSS per agent (summed over replicas)"},
      {"heapMibConnected", "heap with every agent (sum)"},
      {"rssMibConnected", "RSS with every agent (sum)"},
      {"maxReplicaHeapMibConnected", "heap of the fullest replica"},
      {"connectSeconds", "connect time"}
    };
    Map<String, Object> ratios = new LinkedHashMap<>();
    Table table = new Table("measure", b, a, a + " / " + b);
    for (String[] k : keys) {
      double x = num(before, k[0]);
      double y = num(after, k[0]);
      double ratio = round(y / x);
      ratios.put(k[0] + "Ratio", ratio);
      table.row(k[1], x, y, ratio);
    }
    System.out.println(table);
    return ratios;
  }

  static Map<String, Object> measure(Target t, Options o, SimChannels channels) throws Exception {
    int agents = o.agents();
    System.out.printf("== %s (%s, pids %s)%n", t.label(), t.address(), t.pids());
    Map<String, long[]> mem0 = memory(o.jcmd(), t.pids());
    Recorder rec = new Recorder();
    List<FleetAgent> fleet = Collections.synchronizedList(new ArrayList<>(agents));
    // Like real agents, every agent beats at least every 20 s between the phases: the hub closes
    // streams that stay silent for its disconnect timeout (90 s).
    Thread keepAlive =
        Thread.ofPlatform().daemon().name("fleet-keepalive").start(() -> keepAlive(fleet));
    List<String[]> known = o.agentsFrom() == null ? null : readAgents(o.agentsFrom(), agents);
    long c0 = System.nanoTime();
    connect(
        t, known == null ? agents : known.size(), o.parallel(), channels, rec, fleet, known, true);
    agents = fleet.size();
    double connectSeconds = (System.nanoTime() - c0) / 1e9;
    System.out.printf(
        "%d agents %s in %.1f s%n",
        agents,
        known == null ? "connected" : "connected again (clusters of an earlier run)",
        connectSeconds);
    if (o.saveAgents() != null) {
      saveAgents(o.saveAgents(), fleet);
    }
    Map<String, long[]> mem1 = memory(o.jcmd(), t.pids());
    Map<String, Integer> spread = t.statsUrl() == null ? null : spread(t.statsUrl());
    if (spread != null) {
      System.out.println("agents per replica (HAProxy's sessions): " + spread);
    }

    Phase open = openLoop(fleet, rec, o.rate(), o.seconds());
    Stats openStats = Stats.ofNanos(open.rttNanos());
    System.out.printf(
        "open loop: %,d sent, %,d acked in %.1f s = %,.0f hb/s, p50 %.2f ms, p99 %.2f ms%n",
        open.sent(),
        open.acked(),
        open.seconds(),
        open.ackRate(),
        openStats.p50(),
        openStats.p99());
    Phase sat = closedLoop(fleet, rec, o.seconds());
    Stats satStats = Stats.ofNanos(sat.rttNanos());
    System.out.printf(
        "saturation: %,d acked in %.1f s = %,.0f hb/s, p50 %.2f ms, p99 %.2f ms%n",
        sat.acked(), sat.seconds(), sat.ackRate(), satStats.p50(), satStats.p99());
    List<Map<String, Object>> soak =
        o.soakMinutes() > 0 && t.hubUrl() != null
            ? soak(t, fleet, rec, o.soakMinutes(), o.soakRate(), o.jcmd())
            : null;
    Map<String, Object> storm =
        o.stormDir() != null && t.hubUrl() != null
            ? storm(
                t, fleet, rec, o.stormDir(), o.stormRestart(), o.resetChannelBackoff(), o.jcmd())
            : null;

    rec.ending = true;
    keepAlive.interrupt();
    keepAlive.join();
    for (FleetAgent a : fleet) {
      try {
        a.out.onCompleted();
      } catch (RuntimeException ignored) {
        // a stream the server already ended
      }
      a.channel.shutdown();
    }
    // Bounded: a connection the server does not close in time is cut.
    long closeBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    for (FleetAgent a : fleet) {
      long left = closeBy - System.nanoTime();
      if (left <= 0 || !a.channel.awaitTermination(left, TimeUnit.NANOSECONDS)) {
        a.channel.shutdownNow();
      }
    }

    long heap0 = sum(mem0, 0);
    long heap1 = sum(mem1, 0);
    long rss0 = sum(mem0, 1);
    long rss1 = sum(mem1, 1);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("label", t.label());
    m.put("agents", agents);
    m.put("registered", known == null);
    m.put("connectSeconds", round(connectSeconds));
    m.put("heapKibIdle", heap0);
    m.put("heapKibConnected", heap1);
    m.put("heapMibConnected", round(heap1 / 1024.0));
    m.put("heapKibPerAgent", round((heap1 - heap0) / (double) agents));
    m.put("rssKibIdle", rss0);
    m.put("rssKibConnected", rss1);
    m.put("rssMibConnected", round(rss1 / 1024.0));
    m.put("rssKibPerAgent", round((rss1 - rss0) / (double) agents));
    Map<String, Object> replicas = new LinkedHashMap<>();
    long maxHeap = 0;
    for (String name : t.pids().keySet()) {
      long[] before = mem0.get(name);
      long[] after = mem1.get(name);
      int on = spread != null ? spread.getOrDefault(name, 0) : agents;
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("agents", on);
      r.put("heapKibIdle", before[0]);
      r.put("heapKibConnected", after[0]);
      r.put("heapKibPerAgent", on == 0 ? null : round((after[0] - before[0]) / (double) on));
      r.put("rssKibIdle", before[1]);
      r.put("rssKibConnected", after[1]);
      r.put("rssKibPerAgent", on == 0 ? null : round((after[1] - before[1]) / (double) on));
      replicas.put(name, r);
      maxHeap = Math.max(maxHeap, after[0]);
    }
    m.put("replicas", replicas);
    m.put("maxReplicaHeapMibConnected", round(maxHeap / 1024.0));
    if (spread != null) {
      m.put("spread", spread);
    }
    m.put("openLoopTargetRate", o.rate());
    m.put("openLoopRate", round(open.ackRate()));
    m.put("openLoopP50Ms", openStats.p50());
    m.put("openLoopP99Ms", openStats.p99());
    m.put("openLoopLost", open.sent() - open.acked());
    m.put("saturatedRate", round(sat.ackRate()));
    m.put("saturatedP50Ms", satStats.p50());
    m.put("saturatedP99Ms", satStats.p99());
    m.put("openLoop", openStats.toMap());
    m.put("saturated", satStats.toMap());
    if (soak != null) {
      m.put("soak", soak);
    }
    if (storm != null) {
      m.put("storm", storm);
    }
    return m;
  }

  /** Heap after a full GC and RSS, in KiB, of every process (one after the other). */
  static Map<String, long[]> memory(String jcmd, Map<String, Long> pids)
      throws IOException, InterruptedException {
    Map<String, long[]> m = new LinkedHashMap<>();
    for (var e : pids.entrySet()) {
      m.put(e.getKey(), new long[] {heapAfterGc(jcmd, e.getValue()), rssKib(e.getValue())});
    }
    return m;
  }

  private static long sum(Map<String, long[]> m, int i) {
    return m.values().stream().mapToLong(v -> v[i]).sum();
  }

  /**
   * The agents' streams per replica: the current sessions of each server of HAProxy's {@code
   * hub_grpc} backend (its statistics as CSV). One agent is one TCP connection.
   */
  static Map<String, Integer> spread(String statsUrls) throws IOException, InterruptedException {
    Map<String, Integer> spread = new TreeMap<>();
    for (String statsUrl : statsUrls.split(",")) {
      spreadOf(statsUrl.trim()).forEach((server, n) -> spread.merge(server, n, Integer::sum));
    }
    return spread;
  }

  /** {@link #spread} of one HAProxy. */
  private static Map<String, Integer> spreadOf(String statsUrl)
      throws IOException, InterruptedException {
    String csv;
    try (HttpClient http = HttpClient.newHttpClient()) {
      csv =
          http.send(
                  HttpRequest.newBuilder(URI.create(statsUrl.replaceAll("/$", "") + "/;csv"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
    }
    String[] lines = csv.split("\n");
    List<String> header = Arrays.asList(lines[0].replaceFirst("^# ", "").split(","));
    int px = header.indexOf("pxname");
    int sv = header.indexOf("svname");
    int scur = header.indexOf("scur");
    Map<String, Integer> spread = new TreeMap<>();
    for (int i = 1; i < lines.length; i++) {
      String[] f = lines[i].split(",", -1);
      if (f.length > scur
          && f[px].equals("hub_grpc")
          && !f[sv].equals("BACKEND")
          && !f[sv].equals("FRONTEND")) {
        spread.put(f[sv], Integer.parseInt(f[scur]));
      }
    }
    return spread;
  }

  /**
   * {@code --register-only 1}: creates and registers {@code --agents} clusters ({@code
   * --register-parallelism} at a time) without opening their streams, and saves their tokens
   * ({@code --save-agents}) for runs that connect them ({@code --agents-from}). Registration is the
   * fleet's set-up, not what the phases measure: so every measured run sees the same agents
   * connect, none of them right after registering thousands of clusters.
   */
  static void register(Target t, Options o, SimChannels channels, Report report) throws Exception {
    if (o.saveAgents() == null) {
      throw new IllegalStateException("--register-only needs --save-agents <file>");
    }
    System.out.printf(
        "== registering %,d clusters through %s, %d at a time%n",
        o.agents(), t.address(), o.parallel());
    List<FleetAgent> fleet = Collections.synchronizedList(new ArrayList<>(o.agents()));
    long t0 = System.nanoTime();
    connect(t, o.agents(), o.parallel(), channels, new Recorder(), fleet, null, false);
    double seconds = (System.nanoTime() - t0) / 1e9;
    saveAgents(o.saveAgents(), fleet);
    System.out.printf(
        "%,d clusters created and registered in %.1f s: %.1f per second%n",
        fleet.size(), seconds, fleet.size() / seconds);
    report.put(
        "registration",
        Map.of(
            "clusters",
            fleet.size(),
            "seconds",
            round(seconds),
            "perSecond",
            round(fleet.size() / seconds),
            "parallel",
            o.parallel()));
  }

  /** Writes every agent's cluster name and agent token (one per line), for a later run. */
  static void saveAgents(Path file, List<FleetAgent> fleet) throws IOException {
    StringBuilder sb = new StringBuilder();
    synchronized (fleet) {
      for (FleetAgent a : fleet) {
        sb.append(a.name).append('\t').append(a.token).append('\n');
      }
    }
    Files.writeString(file, sb.toString());
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system
    }
  }

  static List<String[]> readAgents(Path file, int max) throws IOException {
    List<String[]> agents = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      String[] f = line.split("\t");
      if (f.length == 2 && agents.size() < max) {
        agents.add(f);
      }
    }
    if (agents.isEmpty()) {
      throw new IllegalStateException("no agents in " + file);
    }
    return agents;
  }

  /**
   * Connects {@code agents} agents to {@code t}, {@code parallel} registrations at a time; with
   * {@code known} (name and agent token of clusters an earlier run registered) it only connects.
   * Without {@code streams} each agent only registers (no Connect stream) and its channel is closed
   * again.
   */
  static void connect(
      Target t,
      int agents,
      int parallel,
      SimChannels channels,
      Recorder rec,
      List<FleetAgent> fleet,
      List<String[]> known,
      boolean streams)
      throws Exception {
    rec.welcomed = new CountDownLatch(streams ? agents : 0);
    AtomicLong createNanos = new AtomicLong();
    AtomicLong registerNanos = new AtomicLong();
    String run = UUID.randomUUID().toString().substring(0, 6);
    ExecutorService registrars = Executors.newFixedThreadPool(parallel);
    JsonHttp rest =
        t.hubUrl() == null ? null : new JsonHttp(t.hubUrl(), System.getenv("BENCH_HUB_TOKEN"));
    try {
      List<Future<FleetAgent>> started = new ArrayList<>();
      for (int i = 0; i < agents; i++) {
        String name = known == null ? "fleet-" + run + "-" + i : known.get(i)[0];
        String knownToken = known == null ? null : known.get(i)[1];
        String[] hostPort = t.addressOf(i);
        started.add(
            registrars.submit(
                () -> {
                  FleetAgent a = new FleetAgent(name, rec);
                  a.channel =
                      channels
                          .to(hostPort[0], Integer.parseInt(hostPort[1]))
                          .keepAliveTime(5, TimeUnit.MINUTES)
                          .build();
                  if (knownToken != null) {
                    // A cluster registered by an earlier run (--agents-from): connect only, at
                    // most `parallel` agents between opening the stream and the Welcome, as a
                    // fleet rolls out. All at once, 10,000 TLS handshakes and Hellos on one
                    // replica outlast the clients' handshake timeout, and the retries feed the
                    // herd (6,000 of 10,000 not welcomed in 120 s). The storm is not paced.
                    a.token = knownToken;
                    a.open();
                    a.firstWelcome.await(120, TimeUnit.SECONDS);
                    return a;
                  }
                  String registrationToken = "ghqa_reg_bench";
                  long r0 = System.nanoTime();
                  if (rest != null) {
                    registrationToken = createCluster(rest, a);
                  }
                  long r1 = System.nanoTime();
                  createNanos.addAndGet(r1 - r0);
                  RegisterResponse reg = SimAgent.register(a.channel, a.name, registrationToken, 5);
                  registerNanos.addAndGet(System.nanoTime() - r1);
                  a.token = reg.getAgentToken();
                  if (streams) {
                    a.open();
                  } else {
                    a.channel.shutdown();
                  }
                  return a;
                }));
      }
      for (Future<FleetAgent> f : started) {
        fleet.add(f.get(10, TimeUnit.MINUTES));
      }
      if (!rec.welcomed.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            rec.welcomed.getCount() + " of " + agents + " agents were not welcomed within 120 s");
      }
      if (known == null) {
        System.out.printf(
            "mean per agent: cluster created (REST) %.1f ms, Register %.1f ms%n",
            createNanos.get() / 1e6 / agents, registerNanos.get() / 1e6 / agents);
      }
    } finally {
      registrars.shutdownNow();
      if (rest != null) {
        rest.close();
      }
    }
  }

  /**
   * L1: heartbeats at {@code rate} for {@code minutes}; after every minute the hub's heap after a
   * full GC, its open file descriptors, its PostgreSQL pool (Hikari's active, idle and pending
   * connections from /actuator/prometheus) and that minute's p99. Flat rows are the result.
   */
  static List<Map<String, Object>> soak(
      Target t, List<FleetAgent> fleet, Recorder rec, int minutes, int rate, String jcmd)
      throws Exception {
    List<Map<String, Object>> rows = new ArrayList<>();
    Table table =
        new Table(
            "minute",
            "hb/s",
            "p50 ms",
            "p99 ms",
            "heap KiB",
            "fds",
            "pool active",
            "idle",
            "pending");
    try (JsonHttp http = new JsonHttp(t.hubUrl(), System.getenv("BENCH_HUB_TOKEN"))) {
      for (int minute = 1; minute <= minutes; minute++) {
        Phase p = openLoop(fleet, rec, rate, 60);
        Stats st = Stats.ofNanos(p.rttNanos());
        String metrics = http.getText("/actuator/prometheus");
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("minute", minute);
        row.put("rate", round(p.ackRate()));
        row.put("p50Ms", st.p50());
        row.put("p99Ms", st.p99());
        row.put("heapKibAfterGc", heapAfterGc(jcmd, t.pids().values().iterator().next()));
        row.put("openFds", openFds(t.pids().values().iterator().next()));
        row.put("poolActive", metric(metrics, "hikaricp_connections_active"));
        row.put("poolIdle", metric(metrics, "hikaricp_connections_idle"));
        row.put("poolPending", metric(metrics, "hikaricp_connections_pending"));
        rows.add(row);
        table.row(row.values().toArray());
        System.out.printf(
            "soak minute %d: %.0f hb/s, p99 %.2f ms, heap %s KiB, %s fds, pool %s/%s/%s%n",
            minute,
            p.ackRate(),
            st.p99(),
            row.get("heapKibAfterGc"),
            row.get("openFds"),
            row.get("poolActive"),
            row.get("poolIdle"),
            row.get("poolPending"));
      }
    }
    System.out.println(table);
    return rows;
  }

  /** The sum of a Prometheus metric's samples (every label set), or -1 when it is absent. */
  static double metric(String exposition, String name) {
    double sum = 0;
    boolean found = false;
    for (String line : exposition.split("\n")) {
      if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        found = true;
      }
    }
    return found ? sum : -1;
  }

  static long openFds(long pid) throws IOException {
    try (var s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      return s.count();
    }
  }

  /**
   * L2: the hub, or one of its replicas, is killed with SIGKILL while every agent is connected
   * (and, with one hub, started again). The agents whose stream it held reconnect with the agent's
   * backoff; this records when each came back, every attempt (per second since the kill, so the
   * herd and the jitter are visible) and how attempts failed.
   */
  static final class Storm {
    static final int SECONDS = 900;
    final ScheduledExecutorService timer = Executors.newScheduledThreadPool(1);
    final Map<String, Integer> errors = new ConcurrentHashMap<>();
    final AtomicIntegerArray attemptsPerSecond = new AtomicIntegerArray(SECONDS);

    /** Agents whose stream failed since the kill, and those without a stream right now. */
    final AtomicInteger lost = new AtomicInteger();

    final AtomicInteger down = new AtomicInteger();
    final boolean resetChannelBackoff;
    volatile long killedNanos = Long.MAX_VALUE;

    Storm(boolean resetChannelBackoff) {
      this.resetChannelBackoff = resetChannelBackoff;
    }

    void attemptAt(long nanos) {
      long sec = (nanos - killedNanos) / 1_000_000_000L;
      if (sec >= 0 && sec < SECONDS) {
        attemptsPerSecond.incrementAndGet((int) sec);
      }
    }
  }

  /**
   * Kills the hub or a replica (through the script: {@code <dir>/kill-request}; it answers with
   * {@code <dir>/killed}, the time, and {@code <dir>/killed-replica}, which one) and measures the
   * recovery: done when the agents that lost their stream all have one again. With {@code restart}
   * the script starts the hub again and writes {@code <dir>/restarted} when it is healthy; without,
   * the other replicas take the agents.
   */
  static Map<String, Object> storm(
      Target t,
      List<FleetAgent> fleet,
      Recorder rec,
      Path dir,
      boolean restart,
      boolean resetChannelBackoff,
      String jcmd)
      throws Exception {
    FleetAgent[] all = fleet.toArray(FleetAgent[]::new);
    Storm storm = new Storm(resetChannelBackoff);
    rec.storm = storm;
    Files.writeString(dir.resolve("kill-request"), "kill");
    long killedEpoch = Long.parseLong(awaitFile(dir.resolve("killed"), 30).trim());
    String killed =
        Files.exists(dir.resolve("killed-replica"))
            ? Files.readString(dir.resolve("killed-replica")).trim()
            : "hub";
    storm.killedNanos =
        System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis() - killedEpoch);
    System.out.printf(
        "%s killed (SIGKILL); its agents reconnect with backoff%s%n",
        killed, restart ? "" : " (it is not restarted)");
    double downSeconds = Double.NaN;
    long healthyNanos = 0;
    if (restart) {
      long healthyEpoch = Long.parseLong(awaitFile(dir.resolve("restarted"), 300).trim());
      downSeconds = (healthyEpoch - killedEpoch) / 1000.0;
      System.out.printf("hub healthy again %.1f s after the kill%n", downSeconds);
      healthyNanos = storm.killedNanos + TimeUnit.MILLISECONDS.toNanos(healthyEpoch - killedEpoch);
    }

    // The REST API while the fleet comes back: every answer's status, 4 requests a second. Done
    // when no agent is without a stream, at least 5 s after the kill (the streams the killed
    // process held all fail within a moment; with several replicas most agents never notice).
    Map<Integer, Integer> rest = new TreeMap<>();
    long settledAfter = storm.killedNanos + TimeUnit.SECONDS.toNanos(5);
    try (JsonHttp http = new JsonHttp(t.hubUrl(), System.getenv("BENCH_HUB_TOKEN"))) {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (System.nanoTime() < deadline) {
        long now = System.nanoTime();
        if (now > settledAfter && storm.down.get() == 0 && storm.lost.get() > 0) {
          break;
        }
        int status;
        try {
          status = http.get("/api/v2/clusters?limit=1").status();
        } catch (RuntimeException e) {
          status = 0; // no answer at all
        }
        rest.merge(status, 1, Integer::sum);
        Thread.sleep(250);
      }
    }
    double settledSeconds = (System.nanoTime() - storm.killedNanos) / 1e9;
    rec.storm = null;
    storm.timer.shutdownNow();
    long missing = storm.down.get();
    double[] sinceKill = new double[all.length];
    double[] sinceHealthy = new double[all.length];
    int n = 0;
    long attempts = 0;
    int maxAttempts = 0;
    for (FleetAgent a : all) {
      attempts += a.attempts.get();
      maxAttempts = Math.max(maxAttempts, a.attempts.get());
      if (a.lostNanos != 0 && a.connected && a.welcomedBackNanos > a.lostNanos) {
        sinceKill[n] = (a.welcomedBackNanos - storm.killedNanos) / 1e6;
        sinceHealthy[n] = restart ? Math.max(0, (a.welcomedBackNanos - healthyNanos) / 1e6) : 0;
        n++;
      }
    }
    int lost = storm.lost.get();
    Stats fromKill = Stats.ofMillis(Arrays.copyOf(sinceKill, n));
    Stats fromHealthy = Stats.ofMillis(Arrays.copyOf(sinceHealthy, n));
    List<Integer> perSecond = new ArrayList<>();
    int last = 0;
    for (int i = 0; i < Storm.SECONDS; i++) {
      perSecond.add(storm.attemptsPerSecond.get(i));
      if (storm.attemptsPerSecond.get(i) > 0) {
        last = i;
      }
    }
    perSecond = perSecond.subList(0, last + 1);
    int peak = perSecond.stream().mapToInt(Integer::intValue).max().orElse(0);
    System.out.printf(
        "reconnect storm: %d of %d agents lost their stream, %d back (%d still without one after"
            + " %.1f s); since the kill p50 %.1f s, p99 %.1f s, max %.1f s%n",
        lost,
        all.length,
        n,
        missing,
        settledSeconds,
        fromKill.p50() / 1000,
        fromKill.p99() / 1000,
        fromKill.max() / 1000);
    if (restart) {
      System.out.printf(
          "since the hub was healthy p50 %.1f s, p99 %.1f s, max %.1f s%n",
          fromHealthy.p50() / 1000, fromHealthy.p99() / 1000, fromHealthy.max() / 1000);
    }
    System.out.printf(
        "connect attempts: %d (%.1f per agent that lost its stream, at most %d), peak %d in one"
            + " second; failures %s; REST answers while recovering %s%n",
        attempts, attempts / (double) Math.max(1, lost), maxAttempts, peak, storm.errors, rest);
    System.out.println("attempts per second since the kill: " + perSecond);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("agents", all.length);
    m.put("killed", killed);
    m.put("restarted", restart);
    m.put("lostStream", lost);
    m.put("notBack", missing);
    m.put("settledSeconds", round(settledSeconds));
    m.put("resetChannelBackoff", resetChannelBackoff);
    if (restart) {
      m.put("hubDownSeconds", downSeconds);
    }
    m.put("backSinceKillMs", fromKill.toMap());
    if (restart) {
      m.put("backSinceHealthyMs", fromHealthy.toMap());
    }
    m.put("connectAttempts", attempts);
    m.put("maxAttemptsPerAgent", maxAttempts);
    m.put("peakAttemptsPerSecond", peak);
    m.put("attemptsPerSecond", perSecond);
    m.put("streamFailures", storm.errors);
    m.put("restStatusesWhileRecovering", rest);
    if (!restart && t.statsUrl() != null) {
      // Where the killed replica's agents went, and what the survivors hold now.
      Map<String, Integer> spread = spread(t.statsUrl());
      Map<String, Long> survivors = new LinkedHashMap<>(t.pids());
      survivors.remove(killed);
      Map<String, long[]> mem = memory(jcmd, survivors);
      Map<String, Object> after = new LinkedHashMap<>();
      for (var e : mem.entrySet()) {
        after.put(
            e.getKey(),
            Map.of(
                "agents", spread.getOrDefault(e.getKey(), 0),
                "heapKib", e.getValue()[0],
                "rssKib", e.getValue()[1]));
      }
      System.out.println("after the storm, agents per replica (HAProxy's sessions): " + spread);
      System.out.println(
          "after the storm, heap after GC and RSS of the survivors (KiB): "
              + after.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList());
      m.put("spreadAfter", spread);
      m.put("survivorsAfter", after);
    }
    return m;
  }

  private static String awaitFile(Path file, int seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!Files.exists(file)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(file + " did not appear within " + seconds + " s");
      }
      Thread.sleep(50);
    }
    Thread.sleep(50); // written with one echo: complete by now
    return Files.readString(file);
  }

  private static void keepAlive(List<FleetAgent> fleet) {
    try {
      while (true) {
        Thread.sleep(5_000);
        long stale = System.nanoTime() - TimeUnit.SECONDS.toNanos(20);
        FleetAgent[] now;
        synchronized (fleet) {
          now = fleet.toArray(FleetAgent[]::new);
        }
        for (FleetAgent a : now) {
          if (a.out != null && a.lastBeatNanos < stale) {
            try {
              a.beat();
            } catch (RuntimeException e) {
              // a stream that is being replaced after the hub went away
            }
          }
        }
      }
    } catch (InterruptedException e) {
      // the measurement of this server is over
    }
  }

  /**
   * Creates the agent's cluster and returns its registration token. A request that timed out may
   * still have created the cluster, so a retry uses a new name (the agent takes it); the abandoned
   * cluster stays unregistered. Three attempts.
   */
  static String createCluster(JsonHttp rest, FleetAgent a) {
    for (int attempt = 0; ; attempt++) {
      String name = attempt == 0 ? a.name : a.name + "-r" + attempt;
      try {
        JsonNode created =
            rest.post("/api/v2/clusters", Map.of("name", name)).expect(201, "registering " + name);
        a.name = name;
        return created.get("registrationToken").asText();
      } catch (RuntimeException e) {
        if (attempt == 2) {
          throw e;
        }
        System.err.println("creating cluster " + name + " failed, retrying: " + e.getMessage());
      }
    }
  }

  /** Heartbeats at {@code rate} per second, round-robin over the fleet, for {@code seconds}. */
  static Phase openLoop(List<FleetAgent> fleet, Recorder rec, int rate, int seconds)
      throws InterruptedException {
    rec.n.set(0);
    rec.acked.set(0);
    rec.on = true;
    long start = System.nanoTime();
    long end = start + TimeUnit.SECONDS.toNanos(seconds);
    FleetAgent[] all = fleet.toArray(FleetAgent[]::new);
    long sent = 0;
    int next = 0;
    while (System.nanoTime() < end) {
      long due = (long) ((System.nanoTime() - start) / 1e9 * rate);
      while (sent < due) {
        all[next].beat();
        next = (next + 1) % all.length;
        sent++;
      }
      Thread.sleep(1);
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    // Acks of the last beats may still arrive: wait up to 5 s for them, outside the rate.
    long drain = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (rec.acked.get() < sent && System.nanoTime() < drain) {
      Thread.sleep(10);
    }
    rec.on = false;
    return new Phase(sent, rec.acked.get(), elapsed, rec.take());
  }

  /** Every agent keeps one heartbeat in flight for {@code seconds}. */
  static Phase closedLoop(List<FleetAgent> fleet, Recorder rec, int seconds)
      throws InterruptedException {
    rec.n.set(0);
    rec.acked.set(0);
    rec.closedLoop = fleet.toArray(FleetAgent[]::new);
    rec.on = true;
    long start = System.nanoTime();
    for (FleetAgent a : rec.closedLoop) {
      a.beat();
    }
    Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
    rec.on = false;
    rec.closedLoop = null;
    double elapsed = (System.nanoTime() - start) / 1e9;
    long acked = rec.acked.get();
    long[] rtts = rec.take();
    Thread.sleep(2_000); // let the last answers arrive before the streams close
    return new Phase(acked, acked, elapsed, rtts);
  }

  /** The heap in use after a full collection, in KiB (G1's {@code GC.heap_info}). */
  static long heapAfterGc(String jcmd, long pid) throws IOException, InterruptedException {
    run(jcmd, Long.toString(pid), "GC.run");
    String info = run(jcmd, Long.toString(pid), "GC.heap_info");
    Matcher m = HEAP_USED.matcher(info);
    if (!m.find()) {
      throw new IllegalStateException("no 'used' in jcmd GC.heap_info of " + pid + ": " + info);
    }
    return Long.parseLong(m.group(1));
  }

  /** The resident set of a process, in KiB. */
  static long rssKib(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmRSS for process " + pid);
  }

  private static String run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String text = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + text);
    }
    return text;
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }
}

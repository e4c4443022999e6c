package dev.gitopshq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.Heartbeat;
import dev.gitopshq.agent.v1.RegisterResponse;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The failover drill of issue 28 (tools/dev/test-failover.sh runs it against the HA profile): while
 * a log follow, an inspection loop, a REST loop, a Git clone loop, a command waiting for approval,
 * a release deploying and {@code --agents} simulated agents run through HAProxy, the script kills
 * (SIGKILL) the replica holding the real agent's stream; the drill then approves the command and
 * checks what a user would notice. Every check prints one {@code PASS} or {@code FAIL} line; the
 * exit code is 0 only when all passed.
 *
 * <p>Coordination with the script, in {@code --dir}: the drill writes {@code kill-request}; the
 * script answers {@code killed} ({@code <epoch ms> <replica>}) and, once the real agent's stream is
 * on another replica, {@code agent-back} ({@code <epoch ms> <replica>}). The drill writes {@code
 * facts.env} (the command's and the deployment's ids) for the script's own checks.
 *
 * <p>Times are wall-clock epoch milliseconds throughout (one machine, one clock), so the drill's
 * records, the script's files and HAProxy's view line up. Everything is bounded: the agents, the
 * loops' duration, every wait.
 */
public final class FailoverDrill {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern REPLICA_HEADER =
      Pattern.compile("(?im)^(?:<|.*<= Recv header:)\\s*x-gitopshq-replica:\\s*(\\S+)");
  private static final String USAGE =
      "FailoverDrill --hub-url URL --grpc HOST:PORT --ca FILE --stats-url URL --dir DIR"
          + " --cluster-id ID --namespace NS --pod POD --deployment NAME --project-id ID"
          + " --clone-url URL [--agents 200] [--settle-seconds 15] [--after-seconds 20]"
          + " [--bound-seconds 15]  (env FAILOVER_TOKEN, FAILOVER_APPROVER_TOKEN,"
          + " FAILOVER_DEPLOY_TOKEN)";

  private FailoverDrill() {}

  // --- records ---------------------------------------------------------------------------------

  /** One request of a loop: when it started and ended, how it ended, who answered. */
  record Call(
      String loop, String what, long start, long end, int status, String replica, String error) {
    boolean ok() {
      return status >= 200 && status < 300 && error == null;
    }

    String describe() {
      return String.format(
          "%s %s started %s ended %s: %s from %s%s",
          loop,
          what,
          Instant.ofEpochMilli(start),
          Instant.ofEpochMilli(end),
          status == 0 ? "no answer" : "HTTP " + status,
          replica == null ? "?" : replica,
          error == null ? "" : " (" + error + ")");
    }
  }

  static final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
  static volatile boolean running = true;
  static final AtomicInteger failed = new AtomicInteger();

  static void pass(String s) {
    System.out.println("    PASS " + s);
  }

  static void fail(String s) {
    System.out.println("    FAIL " + s);
    failed.incrementAndGet();
  }

  static void log(String s) {
    System.out.println("[" + Instant.now() + "] " + s);
  }

  // --- HTTP ------------------------------------------------------------------------------------

  static final class Http {
    final String base;
    final String token;
    final HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(3))
            .build();

    Http(String base, String token) {
      this.base = base;
      this.token = token;
    }

    /** Sends; never throws: status 0 and the error when there was no answer. */
    Call send(String loop, String method, String path, Object body) {
      long t0 = System.currentTimeMillis();
      try {
        HttpRequest.Builder b =
            HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + token)
                .header("Accept", "application/json");
        if (body == null) {
          b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
          b.header("Content-Type", "application/json")
              .method(method, HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
        }
        HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        Call c =
            new Call(
                loop,
                method + " " + path,
                t0,
                System.currentTimeMillis(),
                r.statusCode(),
                r.headers().firstValue("X-GitOpsHQ-Replica").orElse(null),
                r.statusCode() >= 300 ? abbreviate(r.body()) : null);
        last.set(r.body());
        return c;
      } catch (IOException e) {
        return new Call(
            loop, method + " " + path, t0, System.currentTimeMillis(), 0, null, e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Call(
            loop, method + " " + path, t0, System.currentTimeMillis(), 0, null, "interrupted");
      }
    }

    final ThreadLocal<String> last = new ThreadLocal<>();

    JsonNode json(String method, String path, Object body, int expected, String what) {
      Call c = send("setup", method, path, body);
      if (c.status() != expected) {
        throw new IllegalStateException(
            what + ": expected HTTP " + expected + ", got " + c.describe());
      }
      try {
        String b = last.get();
        return b == null || b.isEmpty() ? JSON.nullNode() : JSON.readTree(b);
      } catch (IOException e) {
        throw new IllegalStateException(what + ": not JSON", e);
      }
    }
  }

  static String abbreviate(String s) {
    if (s == null) {
      return null;
    }
    s = s.replaceAll("\\s+", " ");
    return s.length() > 200 ? s.substring(0, 200) + "…" : s;
  }

  // --- simulated agents ------------------------------------------------------------------------

  /** A simulated agent: real cluster, registration, Connect stream, heartbeats, reconnects. */
  static final class DrillAgent extends SimAgent {
    final ScheduledExecutorService timer;
    final AtomicLong seq = new AtomicLong();
    volatile long lostAt;
    volatile long welcomedAt;
    volatile int welcomes;
    final List<long[]> outages = Collections.synchronizedList(new ArrayList<>());

    DrillAgent(String name, ScheduledExecutorService timer) {
      super(name, 10);
      this.timer = timer;
    }

    @Override
    void welcomed() {
      long now = System.currentTimeMillis();
      welcomedAt = now;
      welcomes++;
      if (lostAt != 0) {
        outages.add(new long[] {lostAt, now});
        lostAt = 0;
      }
    }

    @Override
    void failed(Throwable e) {
      lost();
    }

    @Override
    void completed() {
      lost();
    }

    /** The stream ended: try again after the agent's own backoff, as HubLink does. */
    void lost() {
      if (!running) {
        return;
      }
      if (lostAt == 0) {
        lostAt = System.currentTimeMillis();
      }
      long delay = backoff.next().toMillis();
      timer.schedule(
          () -> {
            channel.resetConnectBackoff();
            open();
          },
          delay,
          TimeUnit.MILLISECONDS);
    }

    synchronized void beat() {
      if (out == null || lostAt != 0) {
        return;
      }
      try {
        send(
            AgentMessage.newBuilder()
                .setHeartbeat(Heartbeat.newBuilder().setSequence(seq.incrementAndGet()))
                .build());
      } catch (RuntimeException e) {
        // the stream is being replaced
      }
    }
  }

  static List<DrillAgent> startFleet(
      int agents, String grpc, SimChannels channels, ScheduledExecutorService timer, Http rest)
      throws Exception {
    String[] hp = grpc.split(":");
    String run = UUID.randomUUID().toString().substring(0, 6);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<DrillAgent>> started = new ArrayList<>();
    for (int i = 0; i < agents; i++) {
      String name = "failover-" + run + "-" + i;
      started.add(
          pool.submit(
              () -> {
                DrillAgent a = new DrillAgent(name, timer);
                JsonNode created = createCluster(rest, name);
                a.channel = channels.to(hp[0], Integer.parseInt(hp[1])).build();
                RegisterResponse reg =
                    SimAgent.register(
                        a.channel,
                        created.path("cluster").path("name").asText(name),
                        created.get("registrationToken").asText(),
                        1);
                a.token = reg.getAgentToken();
                a.open();
                return a;
              }));
    }
    List<DrillAgent> fleet = new ArrayList<>();
    for (Future<DrillAgent> f : started) {
      fleet.add(f.get(10, TimeUnit.MINUTES));
    }
    pool.shutdown();
    long deadline = System.currentTimeMillis() + 120_000;
    while (fleet.stream().anyMatch(a -> a.welcomes == 0)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("not every simulated agent was welcomed within 120 s");
      }
      Thread.sleep(200);
    }
    return fleet;
  }

  // --- the log follow --------------------------------------------------------------------------

  /**
   * A log follow over the UI's WebSocket ({@code gitopshq.logs.v1}, the token as the subprotocol
   * {@code bearer.<token>}) that reconnects by itself as the web UI's Logs tab does
   * (ui/src/clusters/logs/LogsTab.tsx): a session that had opened and then ended {@code
   * agent_disconnected} (the replica holding the agent's stream went away) waits until the
   * cluster's {@code connectedAt} differs from the one read when the session opened (polled once a
   * second, at most 60 s, else it gives up); one whose socket closed by itself (the replica serving
   * it went away) waits the same way but reconnects after at most 5 s anyway. The new session asks
   * for new lines only ({@code tailLines=0}). Any other end stops it, as in the UI.
   */
  static final class Follow {
    static final long RECONNECT_WAIT_MS = 60_000;
    static final long SOCKET_RECONNECT_WAIT_MS = 5_000;
    final Http rest;
    final String clusterId;
    final String ns;
    final String pod;
    final HttpClient client = HttpClient.newHttpClient();
    final AtomicLong lines = new AtomicLong();
    final AtomicLong linesAfterReconnect = new AtomicLong();
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    volatile long brokeAt;
    volatile long resumedAt;
    volatile int reconnects;
    volatile WebSocket ws;
    volatile int gen;
    volatile boolean opened;
    volatile boolean reconnecting;
    volatile String seen = "";

    Follow(Http rest, String clusterId, String ns, String pod) {
      this.rest = rest;
      this.clusterId = clusterId;
      this.ns = ns;
      this.pod = pod;
    }

    /** The agent's connectedAt while the cluster says Connected, else "". */
    String agentConnectedAt() {
      Call c = rest.send("follow", "GET", "/api/v2/clusters/" + clusterId, null);
      calls.add(c);
      try {
        JsonNode cl = c.ok() ? JSON.readTree(rest.last.get()) : null;
        return cl != null && cl.path("status").asText().equals("Connected")
            ? cl.path("connectedAt").asText("")
            : "";
      } catch (IOException e) {
        return "";
      }
    }

    void open(int tailLines) {
      int g = ++gen;
      opened = false;
      seen = agentConnectedAt();
      String url =
          rest.base.replaceFirst("^http", "ws")
              + "/api/v2/clusters/"
              + clusterId
              + "/logs/ws?namespace="
              + URLEncoder.encode(ns, StandardCharsets.UTF_8)
              + "&pod="
              + URLEncoder.encode(pod, StandardCharsets.UTF_8)
              + "&tailLines="
              + tailLines
              + "&timestamps=true&follow=true";
      long t0 = System.currentTimeMillis();
      try {
        ws =
            client
                .newWebSocketBuilder()
                .subprotocols("gitopshq.logs.v1", "bearer." + rest.token)
                .connectTimeout(Duration.ofSeconds(5))
                .buildAsync(URI.create(url), new Listener(g))
                .get(30, TimeUnit.SECONDS);
        events.add(Instant.ofEpochMilli(t0) + " socket open (tailLines=" + tailLines + ")");
      } catch (Exception e) {
        events.add(Instant.now() + " could not open: " + e);
        calls.add(
            new Call(
                "follow", "GET logs/ws", t0, System.currentTimeMillis(), 0, null, e.toString()));
      }
    }

    final class Listener implements WebSocket.Listener {
      final StringBuilder text = new StringBuilder();
      final int g;
      volatile boolean endedByHub;

      Listener(int g) {
        this.g = g;
      }

      @Override
      public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
        text.append(data);
        if (last) {
          String t = text.toString();
          text.setLength(0);
          events.add(Instant.now() + " " + t);
          try {
            JsonNode m = JSON.readTree(t);
            String type = m.path("type").asText();
            if (type.equals("opened") && g == gen) {
              opened = true;
            } else if (type.equals("ended")) {
              endedByHub = true;
              if (m.path("reason").asText().equals("agent_disconnected")) {
                broke(
                    g,
                    "ended: agent_disconnected " + m.path("message").asText(),
                    RECONNECT_WAIT_MS);
              }
            } else if (type.equals("error")) {
              endedByHub = true;
            }
          } catch (IOException e) {
            // not JSON: ignored, as the UI does
          }
        }
        w.request(1);
        return null;
      }

      @Override
      public CompletionStage<?> onBinary(WebSocket w, ByteBuffer data, boolean last) {
        int n = 0;
        while (data.hasRemaining()) {
          if (data.get() == '\n') {
            n++;
          }
        }
        if (n > 0) {
          lines.addAndGet(n);
          if (reconnects > 0) {
            if (resumedAt == 0) {
              resumedAt = System.currentTimeMillis();
            }
            linesAfterReconnect.addAndGet(n);
          }
        }
        w.request(1);
        return null;
      }

      @Override
      public CompletionStage<?> onClose(WebSocket w, int code, String reason) {
        events.add(Instant.now() + " closed " + code + " " + reason);
        if (!endedByHub && code != 1000) {
          broke(g, "the connection to the hub closed (" + code + ")", SOCKET_RECONNECT_WAIT_MS);
        }
        return null;
      }

      @Override
      public void onError(WebSocket w, Throwable e) {
        events.add(Instant.now() + " error " + e);
        if (!endedByHub) {
          broke(g, "the connection to the hub broke (" + e + ")", SOCKET_RECONNECT_WAIT_MS);
        }
      }
    }

    /** A break of the current, opened session (an old socket's late close is ignored). */
    synchronized void broke(int g, String why, long waitMs) {
      if (!running || g != gen || !opened || reconnecting) {
        return;
      }
      brokeAt = System.currentTimeMillis();
      reconnecting = true;
      String before = seen;
      events.add(Instant.ofEpochMilli(brokeAt) + " broke: " + why);
      Thread.ofPlatform()
          .daemon()
          .name("follow-reconnect")
          .start(
              () -> {
                long until = brokeAt + waitMs;
                boolean back = false;
                while (running) {
                  try {
                    Thread.sleep(1000);
                  } catch (InterruptedException e) {
                    return;
                  }
                  String now = agentConnectedAt();
                  back = !now.isEmpty() && !now.equals(before);
                  if (back || System.currentTimeMillis() >= until) {
                    break;
                  }
                }
                if (!running) {
                  return;
                }
                if (!back && waitMs == RECONNECT_WAIT_MS) {
                  events.add(
                      Instant.now() + " gave up: the agent did not connect again within 60 s");
                  return;
                }
                synchronized (Follow.this) {
                  reconnects++;
                  reconnecting = false;
                }
                events.add(
                    Instant.now()
                        + " reconnecting ("
                        + (back ? "the agent is back" : "5 s passed")
                        + ")");
                open(0);
              });
    }
  }

  // --- loops -----------------------------------------------------------------------------------

  static Thread loop(String name, long periodMs, Runnable body) {
    return Thread.ofPlatform()
        .name(name)
        .start(
            () -> {
              while (running) {
                long t0 = System.currentTimeMillis();
                body.run();
                long left = periodMs - (System.currentTimeMillis() - t0);
                if (left > 0) {
                  try {
                    Thread.sleep(left);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              }
            });
  }

  static Call gitClone(String cloneUrl, String deployToken, Path work, AtomicInteger n) {
    Path dir = work.resolve("clone-" + n.incrementAndGet());
    long t0 = System.currentTimeMillis();
    try {
      ProcessBuilder pb =
          new ProcessBuilder(
                  "git",
                  "-c",
                  "http.extraHeader=Authorization: Bearer " + deployToken,
                  "clone",
                  "-q",
                  "--no-checkout",
                  cloneUrl,
                  dir.toString())
              .redirectErrorStream(true);
      pb.environment().put("GIT_CURL_VERBOSE", "1");
      pb.environment().put("GIT_TERMINAL_PROMPT", "0");
      Process p = pb.start();
      String outText = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      boolean exited = p.waitFor(60, TimeUnit.SECONDS);
      if (!exited) {
        p.destroyForcibly();
      }
      int rc = exited ? p.exitValue() : -1;
      // The replicas that answered the clone's requests (info/refs, then upload-pack).
      Matcher m = REPLICA_HEADER.matcher(outText);
      List<String> replicas = new ArrayList<>();
      while (m.find()) {
        replicas.add(m.group(1));
      }
      String error = null;
      if (rc != 0) {
        String[] lines = outText.split("\n");
        StringBuilder sb = new StringBuilder("git exit " + rc + ":");
        for (String l : lines) {
          if (l.startsWith("fatal") || l.startsWith("error")) {
            sb.append(' ').append(l);
          }
        }
        error = sb.toString();
      }
      deleteTree(dir);
      return new Call(
          "git-clone",
          "git clone",
          t0,
          System.currentTimeMillis(),
          rc == 0 ? 200 : 0,
          replicas.isEmpty() ? null : String.join(",", replicas),
          error);
    } catch (IOException e) {
      return new Call(
          "git-clone", "git clone", t0, System.currentTimeMillis(), 0, null, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Call(
          "git-clone", "git clone", t0, System.currentTimeMillis(), 0, null, "interrupted");
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /**
   * Creates a simulated agent's cluster (setup, before the kill; not counted). A busy machine can
   * answer 503 (the replica's database pool) or time out: up to five attempts, a new name on each
   * retry (a request that timed out may have created the first).
   */
  static JsonNode createCluster(Http rest, String name) throws InterruptedException {
    for (int attempt = 0; ; attempt++) {
      String n = attempt == 0 ? name : name + "-r" + attempt;
      try {
        return rest.json(
            "POST", "/api/v2/clusters", Map.of("name", n), 201, "creating cluster " + n);
      } catch (IllegalStateException e) {
        if (attempt == 4) {
          throw e;
        }
        System.err.println(e.getMessage() + "; retrying");
        Thread.sleep(2_000);
      }
    }
  }

  /** When HAProxy's statistics first say the replica is DOWN in the HTTP backend (epoch ms). */
  static final class DownWatch {
    volatile long downAt;
    volatile String victim;

    Thread start(String statsUrl) {
      HttpClient c = HttpClient.newHttpClient();
      return Thread.ofPlatform()
          .daemon()
          .name("haproxy-stats")
          .start(
              () -> {
                while (running && downAt == 0) {
                  String v = victim;
                  if (v != null) {
                    try {
                      String csv =
                          c.send(
                                  HttpRequest.newBuilder(URI.create(statsUrl + ";csv"))
                                      .timeout(Duration.ofSeconds(2))
                                      .build(),
                                  HttpResponse.BodyHandlers.ofString())
                              .body();
                      for (String line : csv.split("\n")) {
                        String[] f = line.split(",", -1);
                        if (f.length > 17
                            && f[0].equals("hub_http")
                            && f[1].equals(v)
                            && f[17].startsWith("DOWN")) {
                          downAt = System.currentTimeMillis();
                        }
                      }
                    } catch (Exception e) {
                      // HAProxy busy: next poll
                    }
                  }
                  try {
                    Thread.sleep(100);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
    }
  }

  static String awaitFile(Path f, int seconds) throws Exception {
    long deadline = System.currentTimeMillis() + seconds * 1000L;
    while (!Files.exists(f)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(f + " did not appear within " + seconds + " s");
      }
      Thread.sleep(50);
    }
    Thread.sleep(50);
    return Files.readString(f).trim();
  }

  /** spec.replicas of a live read's YAML, or -1. */
  static int specReplicas(JsonNode detail) throws IOException {
    JsonNode obj = new YAMLMapper().readTree(detail.path("yaml").asText(""));
    return obj == null ? -1 : obj.path("spec").path("replicas").asInt(-1);
  }

  static double pct(List<Double> sorted, double p) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int i = (int) Math.ceil(p / 100 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }

  // --- main ------------------------------------------------------------------------------------

  public static void main(String[] argv) {
    Args.main(argv, USAGE, FailoverDrill::run);
  }

  static void run(Args args) {
    try {
      drill(args);
    } catch (IllegalStateException | IllegalArgumentException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.toString(), e);
    }
  }

  static void drill(Args args) throws Exception {
    String hubUrl = args.required("hub-url");
    String grpc = args.required("grpc");
    File ca = new File(args.required("ca"));
    String statsUrl = args.required("stats-url");
    Path dir = Path.of(args.required("dir"));
    String clusterId = args.required("cluster-id");
    String ns = args.required("namespace");
    String pod = args.required("pod");
    String deployment = args.required("deployment");
    String projectId = args.required("project-id");
    String cloneUrl = args.required("clone-url");
    int agents = Math.min(2_000, args.intValue("agents", 200, 1));
    int settle = Math.min(300, args.intValue("settle-seconds", 15, 1));
    int after = Math.min(300, args.intValue("after-seconds", 20, 5));
    int boundSeconds = Math.min(600, args.intValue("bound-seconds", 15, 1));
    args.rejectUnknown();
    Http owner = new Http(hubUrl, Args.env("FAILOVER_TOKEN"));
    Http approver = new Http(hubUrl, Args.env("FAILOVER_APPROVER_TOKEN"));
    String deployToken = Args.env("FAILOVER_DEPLOY_TOKEN");

    SimChannels channels = new SimChannels(ca);
    ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);

    log("connecting " + agents + " simulated agents through HAProxy (" + grpc + ")");
    long f0 = System.currentTimeMillis();
    List<DrillAgent> fleet = startFleet(agents, grpc, channels, timer, owner);
    log(
        agents
            + " simulated agents connected in "
            + (System.currentTimeMillis() - f0) / 1000.0
            + " s");
    timer.scheduleAtFixedRate(() -> fleet.forEach(DrillAgent::beat), 5, 10, TimeUnit.SECONDS);

    // The command, created with required approval and left waiting.
    JsonNode live =
        owner.json(
            "GET",
            "/api/v2/clusters/"
                + clusterId
                + "/resources/apps/v1/Deployment/"
                + ns
                + "/"
                + deployment,
            null,
            200,
            "reading Deployment " + ns + "/" + deployment);
    int replicasBefore = specReplicas(live);
    int target = replicasBefore == 3 ? 4 : 3;
    JsonNode cmd =
        owner.json(
            "POST",
            "/api/v2/clusters/" + clusterId + "/commands",
            Map.of(
                "type",
                "scale",
                "target",
                Map.of("namespace", ns, "kind", "Deployment", "name", deployment),
                "params",
                Map.of("replicas", target),
                "reason",
                "failover drill: approved after the kill"),
            202,
            "creating the scale command");
    String commandId = cmd.get("id").asText();
    String cmdStatus = "";
    for (int i = 0; i < 60 && !cmdStatus.equals("pending_approval"); i++) {
      cmdStatus =
          owner
              .json("GET", "/api/v2/commands/" + commandId, null, 200, "reading the command")
              .path("status")
              .asText();
      Thread.sleep(500);
    }
    if (!cmdStatus.equals("pending_approval")) {
      throw new IllegalStateException("the command is " + cmdStatus + ", not pending_approval");
    }
    log(
        "command "
            + commandId
            + " (scale "
            + ns
            + "/"
            + deployment
            + " "
            + replicasBefore
            + " -> "
            + target
            + ") waits for approval");

    // The loops.
    Follow follow = new Follow(owner, clusterId, ns, pod);
    follow.open(5);
    Http inspectHttp = new Http(hubUrl, owner.token);
    Http restHttp = new Http(hubUrl, owner.token);
    String livePath =
        "/api/v2/clusters/" + clusterId + "/resources/apps/v1/Deployment/" + ns + "/" + deployment;
    Path work = dir.resolve("clones");
    Files.createDirectories(work);
    AtomicInteger cloneN = new AtomicInteger();
    List<Thread> loops = new ArrayList<>();
    loops.add(
        loop("inspect", 250, () -> calls.add(inspectHttp.send("inspect", "GET", livePath, null))));
    loops.add(
        loop(
            "rest",
            250,
            () -> calls.add(restHttp.send("rest", "GET", "/api/v2/clusters?limit=5", null))));
    loops.add(
        loop("git-clone", 1000, () -> calls.add(gitClone(cloneUrl, deployToken, work, cloneN))));
    log(
        "loops running: log follow (WebSocket), inspection ("
            + livePath
            + " every 250 ms), REST (every 250 ms), git clone (every 1 s); settling "
            + settle
            + " s");
    Thread.sleep(settle * 1000L);

    // The release, started right before the kill.
    JsonNode rel =
        owner.json(
            "POST",
            "/api/v2/projects/" + projectId + "/releases",
            Map.of(
                "description",
                "failover drill: deploying while a replica dies",
                "environment",
                "dev"),
            202,
            "creating the release");
    String deploymentId = rel.path("deployment").path("id").asText();
    int releaseNumber = rel.path("release").path("number").asInt();
    Files.writeString(
        dir.resolve("facts.env"),
        "COMMAND_ID="
            + commandId
            + "\nDEPLOYMENT_ID="
            + deploymentId
            + "\nRELEASE_NUMBER="
            + releaseNumber
            + "\nSCALE_TARGET="
            + target
            + "\n");
    String depBefore = "";
    long relDeadline = System.currentTimeMillis() + 30_000;
    // Killed while the deployment runs: once it left pending (decided, committing or applying).
    while (System.currentTimeMillis() < relDeadline) {
      depBefore =
          owner
              .json(
                  "GET",
                  "/api/v2/projects/" + projectId + "/deployments/" + deploymentId,
                  null,
                  200,
                  "reading the deployment")
              .path("status")
              .asText();
      if (!depBefore.equals("pending")) {
        break;
      }
      Thread.sleep(200);
    }
    log(
        "release #"
            + releaseNumber
            + " deployment "
            + deploymentId
            + " is "
            + depBefore
            + "; asking for the kill");

    DownWatch down = new DownWatch();
    Files.writeString(dir.resolve("kill-request"), "kill");
    String[] killed = awaitFile(dir.resolve("killed"), 30).split(" ");
    long killAt = Long.parseLong(killed[0]);
    String victim = killed[1];
    down.victim = victim;
    down.start(statsUrl);
    log(
        "killed "
            + victim
            + " (SIGKILL) at "
            + Instant.ofEpochMilli(killAt)
            + "; approving the command");

    // Approve the command through HAProxy, as the admin.
    String approvalId = null;
    long apDeadline = System.currentTimeMillis() + 60_000;
    while (approvalId == null && System.currentTimeMillis() < apDeadline) {
      Call c = approver.send("approve", "GET", "/api/v2/approvals", null);
      calls.add(c);
      if (c.ok()) {
        for (JsonNode item : JSON.readTree(approver.last.get()).path("items")) {
          if (item.path("subject").path("type").asText().equals("command")
              && commandId.equals(
                  item.path("subject")
                      .path("commandId")
                      .asText(item.path("subject").path("id").asText()))) {
            approvalId = item.path("id").asText();
          }
        }
        if (approvalId == null) {
          // One open command item in this organization: the drill's.
          for (JsonNode item : JSON.readTree(approver.last.get()).path("items")) {
            if (item.path("kind").asText().equals("command")) {
              approvalId = item.path("id").asText();
            }
          }
        }
      }
      if (approvalId == null) {
        Thread.sleep(500);
      }
    }
    long approvedAt = 0;
    if (approvalId == null) {
      fail("the command's approval item did not show up in the approver's inbox within 60 s");
    } else {
      for (int i = 0; i < 10 && approvedAt == 0; i++) {
        Call c =
            approver.send(
                "approve",
                "POST",
                "/api/v2/approvals/" + approvalId + "/approve",
                Map.of("comment", "failover drill"));
        calls.add(c);
        if (c.status() == 202) {
          approvedAt = c.end();
        } else if (c.status() == 409) {
          break; // already counted: a retry of a request whose answer was lost
        } else {
          Thread.sleep(500);
        }
      }
      log("approved (" + (approvedAt == 0 ? "no 202" : Instant.ofEpochMilli(approvedAt)) + ")");
    }

    // Recovery: the real agent, the fleet.
    String[] back = awaitFile(dir.resolve("agent-back"), 120).split(" ");
    long agentBackAt = Long.parseLong(back[0]);
    long fleetDeadline = killAt + 120_000;
    while (System.currentTimeMillis() < fleetDeadline
        && fleet.stream().anyMatch(a -> a.lostAt != 0)) {
      Thread.sleep(200);
    }
    log("recovered; loops go on for " + after + " s");
    Thread.sleep(after * 1000L);

    // Outcomes of the command and the release.
    String cmdFinal = "";
    JsonNode cmdView = null;
    long cmdDeadline = System.currentTimeMillis() + 120_000;
    while (System.currentTimeMillis() < cmdDeadline) {
      cmdView =
          owner.json("GET", "/api/v2/commands/" + commandId, null, 200, "reading the command");
      cmdFinal = cmdView.path("status").asText();
      if (List.of("completed", "failed", "rejected", "expired", "cancelled", "frozen")
          .contains(cmdFinal)) {
        break;
      }
      Thread.sleep(1000);
    }
    String depFinal = "";
    JsonNode depView = null;
    long depDeadline = System.currentTimeMillis() + 300_000;
    while (System.currentTimeMillis() < depDeadline) {
      depView =
          owner.json(
              "GET",
              "/api/v2/projects/" + projectId + "/deployments/" + deploymentId,
              null,
              200,
              "reading the deployment");
      depFinal = depView.path("status").asText();
      if (List.of("deployed", "failed", "degraded", "rejected", "frozen", "expired", "cancelled")
          .contains(depFinal)) {
        break;
      }
      Thread.sleep(1000);
    }
    running = false;
    for (Thread t : loops) {
      t.join(90_000);
    }
    if (follow.ws != null) {
      follow.ws.sendClose(1000, "done").exceptionally(e -> null);
    }
    long endAt = System.currentTimeMillis();

    // --- checks ---------------------------------------------------------------------------------
    System.out.println();
    log("results (kill at " + Instant.ofEpochMilli(killAt) + ", " + victim + ")");
    long downAt = down.downAt;
    System.out.printf(
        "    HAProxy marked %s DOWN %s%n",
        victim,
        downAt == 0
            ? "(not seen)"
            : String.format("%.1f s after the kill", (downAt - killAt) / 1000.0));

    // 1. agents back within the bound.
    List<Double> ms = new ArrayList<>();
    int affected = 0;
    int notBack = 0;
    for (DrillAgent a : fleet) {
      boolean hit = false;
      for (long[] o : new ArrayList<>(a.outages)) {
        if (o[0] >= killAt - 1000) {
          ms.add((double) (o[1] - killAt));
          hit = true;
        }
      }
      if (a.lostAt != 0) {
        notBack++;
        hit = true;
      }
      if (hit) {
        affected++;
      }
    }
    Collections.sort(ms);
    double realBack = (agentBackAt - killAt) / 1000.0;
    System.out.printf(
        "    simulated agents on %s: %d of %d; back after the kill: p50 %.2f s, p99 %.2f s, max %.2f s;"
            + " not back: %d; real agent back on %s after %.2f s%n",
        victim,
        affected,
        agents,
        pct(ms, 50) / 1000,
        pct(ms, 99) / 1000,
        ms.isEmpty() ? 0 : ms.get(ms.size() - 1) / 1000,
        notBack,
        back[1],
        realBack);
    double maxSim = ms.isEmpty() ? 0 : ms.get(ms.size() - 1) / 1000;
    if (affected > 0 && notBack == 0 && maxSim <= boundSeconds && realBack <= boundSeconds) {
      pass(
          String.format(
              "every agent back within %d s: %d simulated agents cut by the kill, max %.2f s, p99 %.2f s;"
                  + " the real agent %.2f s (on %s)",
              boundSeconds, affected, maxSim, pct(ms, 99) / 1000, realBack, back[1]));
    } else {
      fail(
          String.format(
              "agents back within %d s: %d simulated cut, %d not back, max %.2f s; real agent %.2f s",
              boundSeconds, affected, notBack, maxSim, realBack));
    }

    // 2. the command: completed once.
    int completedEntries = 0;
    int executingEntries = 0;
    if (cmdView != null) {
      for (JsonNode t : cmdView.path("timeline")) {
        String s = t.path("status").asText();
        if (s.equals("completed")) {
          completedEntries++;
        } else if (s.equals("executing")) {
          executingEntries++;
        }
      }
    }
    JsonNode liveAfter =
        owner.json("GET", livePath, null, 200, "reading the Deployment after the drill");
    int replicasAfter = specReplicas(liveAfter);
    if (cmdFinal.equals("completed") && completedEntries == 1 && replicasAfter == target) {
      pass(
          String.format(
              "command %s approved after the kill: completed, one completed entry in its timeline"
                  + " (%d executing), %s/%s spec.replicas %d -> %d (live read)",
              commandId, executingEntries, ns, deployment, replicasBefore, replicasAfter));
    } else {
      fail(
          String.format(
              "command %s: status %s, %d completed entries, spec.replicas %d (wanted %d); output %s error %s",
              commandId,
              cmdFinal,
              completedEntries,
              replicasAfter,
              target,
              cmdView == null ? "" : cmdView.path("output").asText(),
              cmdView == null ? "" : cmdView.path("error").asText()));
    }

    // 3. the release: one deployment, deployed.
    JsonNode relView =
        owner.json(
            "GET",
            "/api/v2/projects/" + projectId + "/releases/" + releaseNumber,
            null,
            200,
            "reading the release");
    int ofRelease = relView.path("deployments").size();
    if (depFinal.equals("deployed") && ofRelease == 1) {
      pass(
          String.format(
              "release #%d (deployment %s, %s at the kill): deployed, one deployment of it",
              releaseNumber, deploymentId, depBefore));
    } else {
      fail(
          String.format(
              "release #%d: deployment %s is %s (%s), %d deployments of the release",
              releaseNumber,
              deploymentId,
              depFinal,
              depView == null ? "" : abbreviate(depView.path("detail").asText()),
              ofRelease));
    }

    // 4. the log follow: one reconnect, lines after it.
    System.out.printf(
        "    log follow: %d lines, %d after the reconnect; broke %s, lines again %s%n",
        follow.lines.get(),
        follow.linesAfterReconnect.get(),
        follow.brokeAt == 0
            ? "never"
            : String.format("%.1f s after the kill", (follow.brokeAt - killAt) / 1000.0),
        follow.resumedAt == 0
            ? "never"
            : String.format("%.1f s after the kill", (follow.resumedAt - killAt) / 1000.0));
    if (follow.reconnects == 1
        && follow.linesAfterReconnect.get() > 0
        && follow.brokeAt >= killAt - 1000) {
      pass(
          String.format(
              "log follow resumed after exactly one reconnect: %d lines after it, the first %.1f s after the kill",
              follow.linesAfterReconnect.get(), (follow.resumedAt - killAt) / 1000.0));
    } else {
      fail(
          "log follow: "
              + follow.reconnects
              + " reconnects, "
              + follow.linesAfterReconnect.get()
              + " lines after; events: "
              + follow.events);
    }

    // 5. failed requests: only those in flight on the killed replica.
    Map<String, int[]> perLoop = new TreeMap<>();
    List<Call> bad = new ArrayList<>();
    List<Call> excused = new ArrayList<>();
    synchronized (calls) {
      for (Call c : calls) {
        int[] n = perLoop.computeIfAbsent(c.loop(), k -> new int[3]);
        n[0]++;
        if (c.ok() || c.loop().equals("setup")) {
          continue;
        }
        n[1]++;
        boolean inFlightAtKill = c.start() <= killAt && c.end() >= killAt;
        boolean beforeDown = downAt == 0 || c.start() < downAt;
        boolean fromVictimOrNone = c.replica() == null || c.replica().contains(victim);
        // A survivor answering a live read while the agent's stream moves waits for the agent
        // (GITOPSHQ_LIVE_RECONNECT_WAIT): such a failure is not excused.
        if ((inFlightAtKill && fromVictimOrNone)
            || (beforeDown && fromVictimOrNone && c.start() >= killAt)) {
          n[2]++;
          excused.add(c);
        } else {
          bad.add(c);
        }
      }
    }
    StringBuilder summary = new StringBuilder();
    perLoop.forEach((k, v) -> summary.append(String.format(" %s %d (%d failed)", k, v[0], v[1])));
    System.out.println("    requests:" + summary);
    for (Call c : excused) {
      System.out.println("      in flight on " + victim + ": " + c.describe());
    }
    for (Call c : bad) {
      System.out.println("      NOT excused: " + c.describe());
    }
    long afterDown = bad.stream().filter(c -> downAt != 0 && c.start() >= downAt).count();
    if (bad.isEmpty()) {
      pass(
          String.format(
              "no request failed but %d in flight on %s; none after HAProxy marked it down",
              excused.size(), victim));
    } else {
      fail(
          bad.size()
              + " failed requests not in flight on "
              + victim
              + " ("
              + afterDown
              + " started after HAProxy marked it down)");
    }
    for (String e : follow.events) {
      System.out.println("      follow: " + e);
    }

    // 6. the audit chain.
    JsonNode verify =
        owner.json("GET", "/api/v2/audit/verify", null, 200, "verifying the audit chain");
    if (verify.path("valid").asBoolean()) {
      pass(
          "audit chain verifies: "
              + verify.path("entriesChecked").asLong()
              + " entries (GET /api/v2/audit/verify)");
    } else {
      fail("audit chain does not verify: " + verify);
    }
    System.out.printf("    drill ran %.0f s after the agents connected%n", (endAt - f0) / 1000.0);

    for (DrillAgent a : fleet) {
      a.channel.shutdownNow();
    }
    timer.shutdownNow();
    channels.close();
    System.out.println(
        failed.get() == 0
            ? "failover drill: all checks passed"
            : "failover drill: " + failed.get() + " checks FAILED");
    System.exit(failed.get() == 0 ? 0 : 1);
  }
}

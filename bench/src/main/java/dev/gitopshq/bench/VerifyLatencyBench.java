package dev.gitopshq.bench;

import java.nio.file.Files;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Issue 24's verification benchmark: from {@code POST /api/v2/projects/{id}/releases} until the
 * deployment is {@code deployed}, which the hub says only once every bound cluster's Flux reports
 * the release's commit applied and healthy.
 *
 * <p>Three steps, each a run of this program, so that {@code bench/run-verify-latency.sh} can
 * restart the hub with other settings between the two measurements:
 *
 * <ul>
 *   <li>{@code --step setup}: environments, tenant, a manifest bundle with one Deployment, a
 *       project bound to the cluster in {@code flux} mode, and the binding; waits for the first
 *       delivery.
 *   <li>{@code --step measure --label L}: {@code --warmup} + {@code --releases} rounds, one at a
 *       time. A round replaces the bundle's file with a new image tag, waits for the delivery
 *       generation that it starts (not timed), then times {@code POST …/releases} until a {@code
 *       GET …/deployments/{id}} (every {@code --poll-ms}) first shows {@code deployed}. Writes the
 *       samples to {@code --out}.
 *   <li>{@code --step report}: reads the two measurements ({@code --request}, {@code --poll}),
 *       prints the tables and the ratio and writes the report.
 * </ul>
 *
 * <p>Token: {@code BENCH_HUB_TOKEN} (the owner's: setup creates environments).
 */
public final class VerifyLatencyBench {
  private static final Set<String> UNSUCCESSFUL =
      Set.of(
          "failed", "rejected", "expired", "cancelled", "frozen", "degraded", "pending_approval");

  private static final String USAGE =
      """
      usage: java -cp gitopshq-bench.jar dev.gitopshq.bench.VerifyLatencyBench --step STEP ...
        --step setup   --hub-url URL --cluster NAME [--project bench-shop] [--environment bench-dev]
                       [--tenant acme] [--namespace bench-acme] [--verify-timeout-seconds 300]
        --step measure --hub-url URL --label LABEL --out FILE [--project bench-shop]
                       [--environment bench-dev] [--releases 10] [--warmup 1] [--poll-ms 100]
                       [--timeout-seconds 240] [--spread-seconds 0] [--flux-logs DIR]
        --step report  --request FILE --poll FILE --out FILE
      environment: BENCH_HUB_TOKEN  API token of the organization's owner
      Normally started by bench/run-verify-latency.sh, which brings up the stack.""";

  /** One timed release. */
  record Sample(
      long endToEndNanos,
      double serverMs,
      double commitMs,
      double verifiedMs,
      int polls,
      Instant createdAt,
      int release,
      String commit) {}

  /** When Flux handled a release's commit, in milliseconds after the deployment's createdAt. */
  record FluxTimes(double artifactMs, double appliedMs, double readyMs) {}

  public static void main(String[] argv) {
    Args.main(argv, USAGE, VerifyLatencyBench::run);
  }

  private static void run(Args a) {
    String step = a.required("step");
    switch (step) {
      case "setup" -> setup(a);
      case "measure" -> measure(a);
      case "report" -> report(a);
      default -> throw new IllegalArgumentException("--step must be setup, measure or report");
    }
  }

  // ---- setup -----------------------------------------------------------------------------------

  private static void setup(Args a) {
    String hubUrl = a.required("hub-url");
    String cluster = a.required("cluster");
    String project = a.get("project", "bench-shop");
    String env = a.get("environment", "bench-dev");
    String tenant = a.get("tenant", "acme");
    String namespace = a.get("namespace", "bench-acme");
    int verifyTimeout = a.intValue("verify-timeout-seconds", 300, 10);
    a.rejectUnknown();
    try (JsonHttp hub = new JsonHttp(hubUrl, Args.env("BENCH_HUB_TOKEN"))) {
      // Two environments: the release policy asks for an approval in the organization's last one.
      created(
          hub.post(
              "/api/v2/environments", Map.of("name", env, "verifyTimeoutSeconds", verifyTimeout)),
          "environment " + env);
      created(hub.post("/api/v2/environments", Map.of("name", env + "-last")), "environment");
      created(hub.post("/api/v2/tenants", Map.of("name", tenant)), "tenant " + tenant);
      created(
          hub.post(
              "/api/v2/manifest-bundles", Map.of("name", bundle(project), "files", files("setup"))),
          "manifest bundle");
      String id =
          hub.post("/api/v2/projects", Map.of("name", project))
              .expect(201, "POST /api/v2/projects")
              .path("id")
              .asText();
      // The namespace exists already (made by the script as the cluster's admin): no
      // createNamespace, so no cluster-scoped object in the release and no approval.
      ok(
          hub.send(
              "PUT",
              "/api/v2/projects/" + id + "/environments/" + env,
              Map.of(
                  "namespacePattern",
                  namespace.replace(tenant, "{{ .tenant }}"),
                  "clusters",
                  List.of(Map.of("cluster", cluster, "deliveryMode", "flux")))),
          "binding environment " + env + " to cluster " + cluster);
      ok(
          hub.send("PUT", "/api/v2/projects/" + id + "/tenants/" + tenant, Map.of()),
          "linking tenant " + tenant);
      created(
          hub.post(
              "/api/v2/projects/" + id + "/bindings",
              Map.of(
                  "name",
                  "app",
                  "kind",
                  "manifests",
                  "source",
                  bundle(project),
                  "targets",
                  List.of(Map.of("tenant", tenant, "environment", env)))),
          "binding");
      long revision =
          hub.get("/api/v2/projects/" + id)
              .expect(200, "GET project")
              .path("configRevision")
              .asLong();
      awaitGeneration(hub, id, revision, Duration.ofSeconds(120));
      System.out.printf(
          Locale.ROOT,
          "project %s (%s): environment %s -> cluster %s (flux), tenant %s in %s%n",
          project,
          id,
          env,
          cluster,
          tenant,
          namespace);
    }
  }

  // ---- measure ---------------------------------------------------------------------------------

  private static void measure(Args a) {
    String hubUrl = a.required("hub-url");
    String label = a.required("label");
    Path out = Path.of(a.required("out"));
    String project = a.get("project", "bench-shop");
    String env = a.get("environment", "bench-dev");
    int n = a.intValue("releases", 10, 1);
    int warmup = a.intValue("warmup", 1, 0);
    int pollMs = a.intValue("poll-ms", 100, 10);
    int timeoutSeconds = a.intValue("timeout-seconds", 240, 10);
    int spreadSeconds = a.intValue("spread-seconds", 0, 0);
    String fluxLogs = a.get("flux-logs", "");
    a.rejectUnknown();
    // A fixed seed: the same pauses in every run.
    Random random = new Random(24);
    List<Sample> samples = new ArrayList<>(n);
    List<Map<String, Object>> rounds = new ArrayList<>();
    try (JsonHttp hub = new JsonHttp(hubUrl, Args.env("BENCH_HUB_TOKEN"))) {
      String id = projectId(hub, project);
      System.out.printf(
          Locale.ROOT,
          "%s: %d warm-up + %d releases of project %s into %s (poll every %d ms)%n",
          label,
          warmup,
          n,
          project,
          env,
          pollMs);
      for (int i = 0; i < warmup + n; i++) {
        String tag = label + "-" + i;
        JsonNode put =
            hub.send(
                    "PUT",
                    "/api/v2/manifest-bundles/" + bundle(project),
                    Map.of("files", files(tag)))
                .expect(200, "PUT manifest bundle");
        long revision = -1;
        for (JsonNode p : put.path("projects")) {
          if (p.path("id").asText().equals(id)) {
            revision = p.path("revision").asLong();
          }
        }
        if (revision < 0) {
          throw new IllegalStateException("changing the bundle made no commit in " + project);
        }
        awaitGeneration(hub, id, revision, Duration.ofSeconds(120));
        if (spreadSeconds > 0) {
          // Not timed: lands the release at a random point of the adapter's poll cycle, as a
          // release made by someone would; back to back, each would come just after a poll.
          sleep(random.nextInt(spreadSeconds * 1000));
        }
        Sample s = releaseOnce(hub, id, env, tag, pollMs, Duration.ofSeconds(timeoutSeconds));
        boolean measured = i >= warmup;
        if (measured) {
          samples.add(s);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("tag", tag);
        r.put("warmup", !measured);
        r.put("endToEndMs", Stats.round(s.endToEndNanos() / 1e6));
        r.put("commitMs", Stats.round(s.commitMs()));
        r.put("verifiedMs", Stats.round(s.verifiedMs()));
        rounds.add(r);
        r.put("release", s.release());
        r.put("commit", s.commit());
        r.put("createdAt", s.createdAt().toString());
        System.out.printf(
            Locale.ROOT,
            "  %s%-10s %8.0f ms (commits at %6.0f ms, cluster verified at %8.0f ms)%n",
            measured ? "" : "warm-up ",
            tag,
            s.endToEndNanos() / 1e6,
            s.commitMs(),
            s.verifiedMs());
      }
    }
    Map<String, Object> part = new LinkedHashMap<>();
    part.put("label", label);
    part.put("releases", n);
    part.put("warmup", warmup);
    part.put("pollMs", pollMs);
    part.put("rounds", rounds);
    part.put(
        "endToEndMs", Report.millis(samples.stream().mapToLong(Sample::endToEndNanos).toArray()));
    part.put("serverMs", samples.stream().mapToDouble(Sample::serverMs).toArray());
    part.put("commitMs", samples.stream().mapToDouble(Sample::commitMs).toArray());
    part.put("verifiedMs", samples.stream().mapToDouble(Sample::verifiedMs).toArray());
    part.put("polls", samples.stream().mapToInt(Sample::polls).toArray());
    if (!fluxLogs.isEmpty()) {
      List<FluxTimes> flux = new ArrayList<>();
      for (Sample s : samples) {
        flux.add(fluxTimes(Path.of(fluxLogs), project, env, s));
      }
      part.put("fluxArtifactMs", flux.stream().mapToDouble(FluxTimes::artifactMs).toArray());
      part.put("fluxAppliedMs", flux.stream().mapToDouble(FluxTimes::appliedMs).toArray());
      part.put("fluxReadyMs", flux.stream().mapToDouble(FluxTimes::readyMs).toArray());
    }
    Report report = new Report("verify-latency-" + label);
    part.forEach(report::put);
    report.write(out);
  }

  private static Sample releaseOnce(
      JsonHttp hub, String id, String env, String tag, int pollMs, Duration timeout) {
    byte[] body = JsonHttp.bytes(Map.of("description", "benchmark " + tag, "environment", env));
    long t0 = System.nanoTime();
    JsonHttp.Response created = hub.post("/api/v2/projects/" + id + "/releases", body);
    String deployment = created.expect(202, "POST releases").path("deployment").path("id").asText();
    long deadline = t0 + timeout.toNanos();
    int polls = 0;
    while (true) {
      JsonNode d =
          hub.get("/api/v2/projects/" + id + "/deployments/" + deployment)
              .expect(200, "GET deployment");
      long seen = System.nanoTime();
      polls++;
      String status = d.path("status").asText();
      if (status.equals("deployed")) {
        Instant createdAt = Instant.parse(d.path("createdAt").asText());
        return new Sample(
            seen - t0,
            since(createdAt, d.path("finishedAt").asText()),
            since(createdAt, commitsWritten(d)),
            since(createdAt, verifiedAt(d)),
            polls,
            createdAt,
            d.path("release").path("number").asInt(),
            d.path("commits").path(env).asText());
      }
      if (UNSUCCESSFUL.contains(status) || seen > deadline) {
        throw new IllegalStateException(
            "release "
                + tag
                + ": deployment "
                + deployment
                + " is "
                + status
                + (seen > deadline ? " after " + timeout.toSeconds() + " s" : "")
                + ": "
                + d.path("detail").asText()
                + " clusters="
                + d.path("clusters"));
      }
      sleep(pollMs);
    }
  }

  /** When the hub had written the commits: the timeline event that starts the wait for clusters. */
  private static String commitsWritten(JsonNode d) {
    for (JsonNode e : d.path("timeline")) {
      String detail = e.path("detail").asText();
      if (detail.startsWith("waiting for ") && detail.contains("to run the deployment")) {
        return e.path("at").asText();
      }
    }
    return "";
  }

  /** The latest {@code verifiedAt} of the deployment's clusters. */
  private static String verifiedAt(JsonNode d) {
    String last = "";
    for (JsonNode c : d.path("clusters")) {
      String v = c.path("verifiedAt").asText("");
      if (!v.isEmpty() && (last.isEmpty() || Instant.parse(v).isAfter(Instant.parse(last)))) {
        last = v;
      }
    }
    return last;
  }

  private static double since(Instant from, String to) {
    return to == null || to.isEmpty() || to.equals("null")
        ? Double.NaN
        : Duration.between(from, Instant.parse(to)).toNanos() / 1e6;
  }

  /**
   * Reads, from the controllers' JSON logs, when source-controller stored the artifact of the
   * release's commit (its message names the release), when kustomize-controller applied it and when
   * it finished the reconciliation (after its health checks), i.e. when Flux said Ready.
   */
  private static FluxTimes fluxTimes(Path dir, String project, String env, Sample s) {
    String stored = "stored artifact for commit 'Deploy release #" + s.release() + " of ";
    String revision = "@sha1:" + s.commit();
    String artifact = "";
    String applied = "";
    String ready = "";
    for (String file : List.of("source-controller.log", "kustomize-controller.log")) {
      List<String> lines;
      try {
        lines = Files.readAllLines(dir.resolve(file));
      } catch (IOException e) {
        return new FluxTimes(Double.NaN, Double.NaN, Double.NaN);
      }
      for (String line : lines) {
        if (!line.startsWith("{") || !line.contains(project)) {
          continue;
        }
        JsonNode l;
        try {
          l = JsonHttp.JSON.readTree(line);
        } catch (IOException e) {
          continue;
        }
        String msg = l.path("msg").asText();
        String ts = l.path("ts").asText();
        if (artifact.isEmpty() && msg.startsWith(stored) && msg.endsWith(" to " + env + "'")) {
          artifact = ts;
        } else if (l.path("revision").asText().endsWith(revision)) {
          if (applied.isEmpty() && msg.equals("server-side apply completed")) {
            applied = ts;
          } else if (ready.isEmpty() && msg.startsWith("Reconciliation finished")) {
            ready = ts;
          }
        }
      }
    }
    return new FluxTimes(
        since(s.createdAt(), artifact), since(s.createdAt(), applied), since(s.createdAt(), ready));
  }

  // ---- report ----------------------------------------------------------------------------------

  private static void report(Args a) {
    Path requestFile = Path.of(a.required("request"));
    Path pollFile = Path.of(a.required("poll"));
    Path out = Path.of(a.required("out"));
    a.rejectUnknown();
    JsonNode request = read(requestFile);
    JsonNode poll = read(pollFile);
    Stats rq = stats(request, "endToEndMs");
    Stats pl = stats(poll, "endToEndMs");
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "Release to every cluster verified (Flux; %d releases each, one at a time)%n",
        rq.n());
    System.out.print(
        Table.forStats("measure")
            .stats("with the hub's reconcile request: POST -> deployed", rq)
            .stats("  hub: createdAt -> commits written", stats(request, "commitMs"))
            .stats("  Flux: createdAt -> artifact stored", stats(request, "fluxArtifactMs"))
            .stats("  Flux: createdAt -> applied", stats(request, "fluxAppliedMs"))
            .stats("  Flux: createdAt -> Ready (health checked)", stats(request, "fluxReadyMs"))
            .stats("  hub: createdAt -> cluster verified", stats(request, "verifiedMs"))
            .stats("  hub: createdAt -> finishedAt", stats(request, "serverMs"))
            .stats("Flux's own poll (1 min): POST -> deployed", pl)
            .stats("  hub: createdAt -> commits written", stats(poll, "commitMs"))
            .stats("  Flux: createdAt -> artifact stored", stats(poll, "fluxArtifactMs"))
            .stats("  Flux: createdAt -> applied", stats(poll, "fluxAppliedMs"))
            .stats("  Flux: createdAt -> Ready (health checked)", stats(poll, "fluxReadyMs"))
            .stats("  hub: createdAt -> cluster verified", stats(poll, "verifiedMs"))
            .stats("  hub: createdAt -> finishedAt", stats(poll, "serverMs")));
    System.out.println();
    steps("with the request", request);
    steps("with Flux's own poll", poll);
    Map<String, Object> ratios = new LinkedHashMap<>();
    ratios.put("pollOverRequestP50", ratio(pl.p50(), rq.p50()));
    ratios.put("pollOverRequestP90", ratio(pl.p90(), rq.p90()));
    ratios.put("pollOverRequestMax", ratio(pl.max(), rq.max()));
    System.out.println("Request vs Flux's poll");
    System.out.print(
        new Table("", "with request", "Flux poll (1 min)", "poll / request")
            .row("p50 ms", rq.p50(), pl.p50(), x(ratios.get("pollOverRequestP50")))
            .row("p90 ms", rq.p90(), pl.p90(), x(ratios.get("pollOverRequestP90")))
            .row("max ms", rq.max(), pl.max(), x(ratios.get("pollOverRequestMax"))));
    boolean met = rq.p50() <= 5000;
    System.out.printf(
        Locale.ROOT,
        "  target p50 <= 5 s with the request: %s (%.1f s)%n",
        met ? "met" : "NOT met",
        rq.p50() / 1000);
    Report report = new Report("verify-latency");
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("request", rq.toMap());
    summary.put("poll", pl.toMap());
    summary.put("targetP50Ms", 5000);
    summary.put("targetMet", met);
    report
        .put("summary", summary)
        .put("ratios", ratios)
        .put("request", request)
        .put("poll", poll)
        .write(out);
    System.out.println();
    System.out.println("JSON: " + out);
  }

  /** Where a phase's time goes: per release, the time between two consecutive steps. */
  private static void steps(String phase, JsonNode part) {
    System.out.println("Where the time goes " + phase + " (per release, between two steps)");
    Table t = Table.forStats("step");
    step(t, part, "POST -> commits written (hub: policy, generation check, commit)", null, "commitMs");
    step(t, part, "commits written -> artifact stored (request or poll, git fetch)", "commitMs", "fluxArtifactMs");
    step(t, part, "artifact stored -> applied (kustomize build, server-side apply)", "fluxArtifactMs", "fluxAppliedMs");
    step(t, part, "applied -> Flux Ready (health checks, polled every 5 s)", "fluxAppliedMs", "fluxReadyMs");
    step(t, part, "Flux Ready -> hub verified (hub polls every 1 s)", "fluxReadyMs", "verifiedMs");
    step(t, part, "hub verified -> deployment finished", "verifiedMs", "serverMs");
    System.out.print(t);
    System.out.println();
  }

  /** A row of the per-release differences {@code to - from} (from null: the createdAt). */
  private static void step(Table t, JsonNode part, String label, String from, String to) {
    JsonNode b = part.path(to);
    List<Double> v = new ArrayList<>();
    for (int i = 0; i < b.size(); i++) {
      double x =
          b.get(i).asDouble(Double.NaN)
              - (from == null ? 0 : part.path(from).path(i).asDouble(Double.NaN));
      if (!Double.isNaN(x)) {
        v.add(x);
      }
    }
    if (!v.isEmpty()) {
      t.stats(label, Stats.ofMillis(v.stream().mapToDouble(Double::doubleValue).toArray()));
    }
  }

  private static Stats stats(JsonNode part, String field) {
    List<Double> v = new ArrayList<>();
    for (JsonNode x : part.path(field)) {
      if (x.isNumber() && !Double.isNaN(x.asDouble())) {
        v.add(x.asDouble());
      }
    }
    if (v.isEmpty()) {
      return new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    return Stats.ofMillis(v.stream().mapToDouble(Double::doubleValue).toArray());
  }

  private static JsonNode read(Path file) {
    try {
      return JsonHttp.JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static String bundle(String project) {
    return project + "-web";
  }

  /** The bundle: one Deployment whose image tag is the round's. */
  private static Map<String, String> files(String tag) {
    return Map.of(
        "deployment.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
        spec:
          replicas: 1
          selector:
            matchLabels: {app: web}
          template:
            metadata:
              labels: {app: web}
            spec:
              containers:
              - name: web
                image: registry.example/web:%s
        """
            .formatted(tag));
  }

  private static String projectId(JsonHttp hub, String name) {
    for (JsonNode p : hub.get("/api/v2/projects").expect(200, "GET projects").path("items")) {
      if (p.path("name").asText().equals(name)) {
        return p.path("id").asText();
      }
    }
    throw new IllegalStateException("no project " + name + "; run --step setup first");
  }

  private static void awaitGeneration(JsonHttp hub, String id, long revision, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String status = "";
    while (System.nanoTime() < deadline) {
      JsonHttp.Response r = hub.get("/api/v2/projects/" + id + "/generations/" + revision);
      if (r.status() == 200) {
        JsonNode g = r.json();
        status = g.path("status").asText();
        if (status.equals("committed") || status.equals("unchanged")) {
          return;
        }
        if (status.equals("failed") || status.equals("superseded")) {
          throw new IllegalStateException(
              "the delivery generation of revision " + revision + " is " + status + ": " + g);
        }
      }
      sleep(100);
    }
    throw new IllegalStateException(
        "the delivery generation of revision " + revision + " did not end (" + status + ")");
  }

  private static void created(JsonHttp.Response r, String what) {
    if (r.status() != 201 && r.status() != 409) {
      throw new IllegalStateException(what + ": HTTP " + r.status() + ": " + r.body());
    }
  }

  private static void ok(JsonHttp.Response r, String what) {
    if (r.status() < 200 || r.status() > 299) {
      throw new IllegalStateException(what + ": HTTP " + r.status() + ": " + r.body());
    }
  }

  private static double ratio(double a, double b) {
    return Math.round(a / b * 100.0) / 100.0;
  }

  private static String x(Object ratio) {
    return String.format(Locale.ROOT, "%.2fx", (Double) ratio);
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

package dev.gitopshq.bench;

import java.util.stream.IntStream;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.activities.policy.OpaClient;
import dev.gitopshq.activities.policy.PolicyText;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Benchmark 2: latency of one approval decision along six paths, from the outermost to bare OPA:
 *
 * <ol>
 *   <li>{@code hub REST}: {@code POST /api/v2/policies/approval/evaluate} (bearer-token lookup,
 *       the active-version lookup in PostgreSQL, then {@code OpaClient} to OPA);
 *   <li>{@code OpaClient}: {@link OpaClient#evaluate} in this JVM on the organization's {@code
 *       org_<hex>/gitopshq/approval/gitopshq_result} (PolicyText#RESULT_RULE: the decision, the
 *       version and the text hash in one rule), the same call the hub's PolicyService makes, over
 *       cleartext HTTP/2 (OPA runs with {@code --h2c});
 *   <li>{@code OPA result}: the bare call of the same rule ({@link BareOpa}): the same transport
 *       (h2c, one reused connection), the same request bytes serialized once beforehand, the answer
 *       read as bytes and not parsed; the {@code bare} the ratios divide by, so that {@code
 *       OpaClient} / this is the Java client's own cost;
 *   <li>{@code OPA decision}: the bare h2c call of {@code org_<hex>/gitopshq/approval/decision},
 *       the decision rule alone (what the result rule adds to it);
 *   <li>{@code OPA result http/1.1}: the same rule over HTTP/1.1 keep-alive with java.net.http and
 *       the answer parsed as JSON, the bare call before 2026-11-26 (a reference for the transport).
 * </ol>
 *
 * <p>A reference path, {@code hub floor} ({@code GET /api/v2/features}: HTTP, the same bearer-token
 * lookup, Spring MVC and JSON, but no policy work), splits the hub's share into what every
 * authenticated request pays and what the evaluate endpoint adds.
 *
 * <p>The decision paths get the same input. Calls are sequential; each measured round calls every
 * path once, in an order shuffled anew every round (a fixed seed, so runs repeat it), so a slow
 * phase of a shared machine hits all paths alike and no path always follows the same other one. (A
 * rotation of a fixed list, used before 2026-11-26, put OpaClient right after the hub's REST call in
 * five rounds of six, while the hub was still finishing that request's work on the same two cores.) Before measuring, the decision paths are checked to give the same {@code
 * outcome}, and OpaClient to answer over HTTP/2; the bare paths' answers are parsed for that check
 * only, outside the timed calls.
 *
 * <p>Token: {@code BENCH_HUB_TOKEN} (any role with {@code policies:read}).
 */
public final class OpaLatencyBench {
  private static final String HUB_FLOOR = "hub floor";

  private static final String USAGE =
      """
      usage: java -cp gitopshq-bench.jar dev.gitopshq.bench.OpaLatencyBench \\
               --hub-url URL --opa-url URL --input FILE --out FILE \\
               [--decisions 2000] [--warmup 200]
      --input: an approval input document, or a policies/testdata sample ({"input": {...}, ...})
      environment: BENCH_HUB_TOKEN  API token with policies:read
                   GITOPSHQ_OPA_TOKEN  the token OPA's authorization policy admits (bench/lib/stack.sh makes it)
      Normally started by bench/run-opa-latency.sh, which brings up the stack.""";

  private static final String BARE = "OPA result";
  private static final long ORDER_SEED = 20261126L;

  /**
   * One measured path: a label, what it calls, the timed call, and how to read the decision's
   * outcome from what the call returned (untimed; empty for the reference path, which decides
   * nothing).
   */
  private record Route(
      String label, String description, Supplier<?> call, Function<Object, String> outcome) {
    static Route of(String label, String description, Supplier<String> call) {
      return new Route(label, description, call, o -> (String) o);
    }

    /** A bare h2c call: the timed part returns OPA's raw answer; the outcome is read apart. */
    static Route bare(String label, String description, Supplier<byte[]> call, String... path) {
      return new Route(label, description, call, o -> outcomeOf((byte[]) o, path));
    }

    boolean decides() {
      return !label.equals(HUB_FLOOR);
    }
  }

  private static String outcomeOf(byte[] answer, String... path) {
    try {
      JsonNode n = JsonHttp.JSON.readTree(answer).path("result");
      for (String p : path) {
        n = n.path(p);
      }
      return n.asText();
    } catch (IOException e) {
      throw new IllegalStateException("OPA's answer is not JSON", e);
    }
  }

  private OpaLatencyBench() {}

  public static void main(String[] argv) {
    Args.main(argv, USAGE, OpaLatencyBench::run);
  }

  private static void run(Args a) {
    String hubUrl = a.required("hub-url");
    String opaUrl = a.required("opa-url");
    Path inputFile = Path.of(a.required("input"));
    Path out = Path.of(a.required("out"));
    int n = a.intValue("decisions", 2000, 1);
    int warmup = a.intValue("warmup", 200, 0);
    a.rejectUnknown();
    String token = Args.env("BENCH_HUB_TOKEN");
    String opaToken = System.getenv("GITOPSHQ_OPA_TOKEN");
    JsonNode input = readInput(inputFile);
    Report report = new Report("opa-latency");

    ObjectNode wrapped = JsonHttp.JSON.createObjectNode();
    wrapped.set("input", input);
    byte[] body = JsonHttp.bytes(wrapped);

    try (JsonHttp hub = new JsonHttp(hubUrl, token);
        JsonHttp opa = new JsonHttp(opaUrl, opaToken);
        BareOpa bare = new BareOpa(opaUrl, opaToken);
        OpaClient client = new OpaClient(URI.create(opaUrl), opaToken)) {
      String policyPath = approvalPath(client);
      // What the hub's PolicyService asks for: the one appended rule with decision, version, hash.
      String resultPath = policyPath + "/" + PolicyText.RESULT_RULE;
      List<Route> routes =
          List.of(
              Route.of(
                  "hub REST", "POST /api/v2/policies/approval/evaluate",
                  () -> hub.post("/api/v2/policies/approval/evaluate", body)
                      .expect(200, "hub evaluate").path("decision").path("outcome").asText()),
              Route.of(
                  "OpaClient", "OpaClient.evaluate(\"" + resultPath + "\", input) in-process, h2c",
                  () -> client.evaluate(resultPath, input).path("decision").path("outcome").asText()),
              Route.bare(
                  BARE, "bare h2c POST /v1/data/" + resultPath + ", bytes in, bytes out",
                  () -> bare.post("/v1/data/" + resultPath, body), "decision", "outcome"),
              Route.bare(
                  "OPA decision", "bare h2c POST /v1/data/" + policyPath + "/decision",
                  () -> bare.post("/v1/data/" + policyPath + "/decision", body), "outcome"),
              Route.of(
                  "OPA result http/1.1", "java.net.http HTTP/1.1 POST /v1/data/" + resultPath + ", JSON parsed",
                  () -> opa.post("/v1/data/" + resultPath, body)
                      .expect(200, "OPA result").path("result").path("decision").path("outcome").asText()),
              Route.of(
                  HUB_FLOOR, "GET /api/v2/features (token lookup, no policy work)",
                  () -> {
                    hub.get("/api/v2/features").expect(200, "hub features");
                    return "";
                  }));

      String outcome = checkAgreement(routes);
      if (!client.protocol().equals("h2_prior_knowledge")) {
        throw new IllegalStateException(
            "OpaClient answered over " + client.protocol() + ", not cleartext HTTP/2: is OPA run with --h2c?");
      }
      System.out.printf(
          Locale.ROOT,
          "OPA decision latency: %d warm-up + %d measured rounds, each calling all %d paths once (outcome '%s')%n",
          warmup, n, routes.size(), outcome);
      Random random = new Random(ORDER_SEED);
      int[] order = IntStream.range(0, routes.size()).toArray();
      for (int i = 0; i < warmup; i++) {
        round(routes, shuffle(order, random), null, i);
      }
      long[][] samples = new long[routes.size()][n];
      for (int i = 0; i < n; i++) {
        round(routes, shuffle(order, random), samples, i);
      }
      report(report, routes, samples, n, warmup, outcome, hubUrl, opaUrl, inputFile, out, client);
    }
  }

  /** Calls every path once, in the round's order; records into samples[p][i]. */
  private static void round(List<Route> routes, int[] order, long[][] samples, int i) {
    for (int p : order) {
      long t0 = System.nanoTime();
      routes.get(p).call().get();
      long elapsed = System.nanoTime() - t0;
      if (samples != null) {
        samples[p][i] = elapsed;
      }
    }
  }

  /** A new random order of the paths (Fisher-Yates over {@code order}, in place). */
  private static int[] shuffle(int[] order, Random random) {
    for (int k = order.length - 1; k > 0; k--) {
      int j = random.nextInt(k + 1);
      int tmp = order[k];
      order[k] = order[j];
      order[j] = tmp;
    }
    return order;
  }

  /** The outcome all paths agree on; fails when one differs or has none. */
  private static String checkAgreement(List<Route> routes) {
    Route first = null;
    String agreed = null;
    for (Route r : routes) {
      String outcome = r.outcome().apply(r.call().get());
      if (!r.decides()) {
        continue;
      }
      if (outcome.isEmpty()) {
        throw new IllegalStateException(r.label() + " (" + r.description() + ") returned no decision outcome");
      }
      if (first == null) {
        first = r;
        agreed = outcome;
      } else if (!agreed.equals(outcome)) {
        throw new IllegalStateException(
            "the paths disagree: " + first.label() + " says '" + agreed + "', " + r.label()
                + " says '" + outcome + "'");
      }
    }
    return agreed;
  }

  private static void report(
      Report report, List<Route> routes, long[][] samples, int n, int warmup, String outcome, String hubUrl,
      String opaUrl, Path inputFile, Path out, OpaClient opaClient) {
    Map<String, Stats> stats = new LinkedHashMap<>();
    for (int p = 0; p < routes.size(); p++) {
      stats.put(routes.get(p).label(), Stats.ofNanos(samples[p]));
    }
    Stats bare = stats.get(BARE);
    Stats decision = stats.get("OPA decision");
    Stats http1 = stats.get("OPA result http/1.1");
    Stats client = stats.get("OpaClient");
    Stats rest = stats.get("hub REST");
    Stats floor = stats.get(HUB_FLOOR);

    System.out.println();
    Table t =
        new Table("path", "n", "p50 ms", "p90 ms", "p99 ms", "max ms", "mean ms", "p50 / bare", "p99 / bare", "what");
    for (Route r : routes) {
      Stats s = stats.get(r.label());
      t.row(r.label(), s.n(), s.p50(), s.p90(), s.p99(), s.max(), s.mean(),
          x(s.p50() / bare.p50()), x(s.p99() / bare.p99()), r.description());
    }
    System.out.print(t);
    System.out.printf(
        Locale.ROOT, "OpaClient: protocol %s, %d connection(s) opened for %d calls%n",
        opaClient.protocol(), opaClient.connectionsOpened(), n + warmup + 1);
    System.out.println();
    System.out.println("Differences of medians (where the time goes)");
    Map<String, Object> split = new LinkedHashMap<>();
    split.put("restOverheadP50Ms", Stats.round(rest.p50() - client.p50()));
    split.put("hubFloorP50Ms", Stats.round(floor.p50()));
    split.put("evaluateEndpointExtraP50Ms", Stats.round(rest.p50() - client.p50() - floor.p50()));
    split.put("clientOverheadP50Ms", Stats.round(client.p50() - bare.p50()));
    split.put("resultVsDecisionP50Ms", Stats.round(bare.p50() - decision.p50()));
    split.put("http1VsH2cResultP50Ms", Stats.round(http1.p50() - bare.p50()));
    System.out.print(
        new Table("difference", "p50 ms")
            .row("hub REST - OpaClient: everything the hub adds", rest.p50() - client.p50())
            .row("  of which hub floor: HTTP, bearer-token lookup, Spring MVC, JSON", floor.p50())
            .row("  of which the rest: policy lookup in PostgreSQL, request body, answer", rest.p50() - client.p50() - floor.p50())
            .row("OpaClient - OPA result: the client (input, result, checks)", client.p50() - bare.p50())
            .row("OPA result - OPA decision: the result rule vs the decision rule alone", bare.p50() - decision.p50())
            .row("OPA result http/1.1 - OPA result: java.net.http HTTP/1.1 + JSON vs bare h2c", http1.p50() - bare.p50()));

    Map<String, Object> params = new LinkedHashMap<>();
    params.put("decisions", n);
    params.put("warmup", warmup);
    params.put("order", "interleaved: each round calls every path once, in an order shuffled every round (seed " + ORDER_SEED + ")");
    params.put("hubUrl", hubUrl);
    params.put("opaUrl", opaUrl);
    params.put("input", inputFile.toString());
    params.put("outcome", outcome);
    Map<String, Object> results = new LinkedHashMap<>();
    Map<String, Object> ratios = new LinkedHashMap<>();
    Map<String, Object> raw = new LinkedHashMap<>();
    for (int p = 0; p < routes.size(); p++) {
      Route route = routes.get(p);
      Map<String, Object> r = new LinkedHashMap<>(stats.get(route.label()).toMap());
      r.put("what", route.description());
      results.put(route.label(), r);
      raw.put(route.label(), Report.millis(samples[p]));
    }
    params.put("opaClientProtocol", opaClient.protocol());
    params.put("opaClientConnectionsOpened", opaClient.connectionsOpened());
    ratios.put("opaClientVsBareResultP50", round2(client.p50() / bare.p50()));
    ratios.put("opaClientVsBareResultP99", round2(client.p99() / bare.p99()));
    ratios.put("opaClientVsBareDecisionP50", round2(client.p50() / decision.p50()));
    ratios.put("opaClientVsBareDecisionP99", round2(client.p99() / decision.p99()));
    ratios.put("http1ResultVsBareResultP50", round2(http1.p50() / bare.p50()));
    ratios.put("restVsBareResultP50", round2(rest.p50() / bare.p50()));
    ratios.put("restVsOpaClientP50", round2(rest.p50() / client.p50()));
    report
        .put("parameters", params)
        .put("results", results)
        .put("ratios", ratios)
        .put("differences", split)
        .put("samplesMs", raw)
        .write(out);
    System.out.println();
    System.out.println("JSON: " + out);
  }

  /** The input document: the file itself, or its {@code input} field (policies/testdata samples). */
  private static JsonNode readInput(Path file) {
    JsonNode doc;
    try {
      doc = JsonHttp.JSON.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the input document " + file + ": " + e.getMessage());
    }
    JsonNode input = doc != null && doc.has("input") ? doc.get("input") : doc;
    if (input == null || !input.isObject()) {
      throw new IllegalArgumentException(file + " holds no JSON object (nor an object under \"input\")");
    }
    return input;
  }

  private static double round2(double v) {
    return Math.round(v * 100.0) / 100.0;
  }

  private static String x(double ratio) {
    return String.format(Locale.ROOT, "%.2fx", ratio);
  }

  /**
   * The approval policy's package path in OPA for the stack's one organization (the bench's stack
   * has only the bootstrap organization): found from the module OPA holds for it.
   */
  private static String approvalPath(OpaClient client) {
    List<String> ids =
        client.listPolicyIds().stream()
            .filter(id -> id.startsWith("orgs/") && id.endsWith("/gitopshq/approval"))
            .toList();
    if (ids.size() != 1) {
      throw new IllegalStateException(
          "expected OPA to hold one organization's approval policy, found " + ids);
    }
    return PolicyText.packagePath(UUID.fromString(ids.get(0).split("/")[1]), "approval");
  }
}

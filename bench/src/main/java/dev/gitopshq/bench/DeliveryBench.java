package dev.gitopshq.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.agent.v1.KindScopes;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.git.CommitMessage;
import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.render.ChartSource;
import dev.gitopshq.activities.render.DeliveryPlanner;
import dev.gitopshq.activities.render.Renderer;
import dev.gitopshq.activities.render.Unit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.PackInserter;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Benchmark 3: delivery generation of a project with {@code environments x tenants x workloads}
 * Helm units (5 x 20 x 10 = 1,000 by default), measured three ways on the same units:
 *
 * <ol>
 *   <li><b>GitOpsHQ</b>: {@link DeliveryPlanner#plan} once; every unit rendered by {@link
 *       Renderer} (its pool of render worker processes, as the hub renders) with 1 thread and with {@code --threads}; the rendered trees
 *       written with {@link ProjectRepos#writeTrees} (a pack per batch of 25) and committed in one {@link
 *       ProjectRepos#commit} of {@link TreeEdit.PutTree}s under {@code rendered/}. The second run
 *       (the {@code --threads} renders) writes and commits again and must report {@code
 *       changed=false}.
 *   <li><b>helm CLI</b>: {@code helm template <service> chart.tgz -n <namespace> -f values.json},
 *       one process per unit, as a CI script renders, with the unit's merged values; also with 1
 *       thread and with {@code --threads} processes at a time. Its output is compared object by
 *       object with the render workers' render.
 *   <li><b>git CLI</b>: the same files written into a fresh working tree, then {@code git add -A}
 *       and {@code git commit}, timed separately; its {@code rendered/} tree id must equal the one
 *       GitOpsHQ committed.
 * </ol>
 *
 * <p>Prints the tables and the ratios and writes the JSON report ({@code --out}).
 */
public final class DeliveryBench {
  private static final String USAGE =
      """
      usage: java -cp gitopshq-bench.jar dev.gitopshq.bench.DeliveryBench \\
               --helm PATH --chart DIR --work-dir DIR --out FILE \\
               [--environments 5] [--tenants 20] [--workloads 10] [--threads <cores>] [--warmup 20]
               [--store-rounds 3] [--incremental-rounds 5] [--git git]
      --work-dir is wiped and holds the repositories, helm outputs and the git working tree.
      Normally started by bench/run-delivery.sh.""";

  private static final YAMLMapper YAML = new YAMLMapper();

  /** The render worker pool's settings (RenderWorkers.Config), recorded with the results. */
  private static final Set<String> RENDER_VARIABLES =
      Set.of(
          "GITOPSHQ_RENDER_WORKER_BIN",
          "GITOPSHQ_RENDER_WORKERS",
          "GITOPSHQ_RENDER_TIMEOUT_SECONDS",
          "GITOPSHQ_RENDER_MEMORY_MIB",
          "GITOPSHQ_RENDER_WORKER_RENDERS");

  private DeliveryBench() {}

  public static void main(String[] argv) {
    Args.main(argv, USAGE, DeliveryBench::run);
  }

  /** Wall time and per-item latencies of one pass over all units. */
  private record Pass(String label, int threads, long wallNanos, long[] nanos) {
    double perSecond() {
      return nanos.length / (wallNanos / 1e9);
    }

    Stats stats() {
      return Stats.ofNanos(nanos);
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("threads", threads);
      m.put("units", nanos.length);
      m.put("wallMs", Stats.round(wallNanos / 1e6));
      m.put("perSecond", Stats.round(perSecond()));
      m.put("latency", stats().toMap());
      m.put("samplesMs", Report.millis(nanos));
      return m;
    }
  }

  /** Timings of writing all unit trees and the one commit. */
  private record Store(long writeTreesNanos, long commitNanos, CommitResult result, ObjectId renderedTree) {
    long totalNanos() {
      return writeTreesNanos + commitNanos;
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("writeTreesMs", Stats.round(writeTreesNanos / 1e6));
      m.put("commitMs", Stats.round(commitNanos / 1e6));
      m.put("totalMs", Stats.round((writeTreesNanos + commitNanos) / 1e6));
      m.put("changed", result.changed());
      m.put("changedPaths", result.changedPaths());
      m.put("commit", result.commitName());
      m.put("renderedTree", renderedTree == null ? null : renderedTree.name());
      return m;
    }
  }

  private static void run(Args a) throws IllegalArgumentException {
    Path helm = Path.of(a.required("helm"));
    Path chartDir = Path.of(a.required("chart"));
    Path work = Path.of(a.required("work-dir")).toAbsolutePath();
    Path out = Path.of(a.required("out"));
    int environments = a.intValue("environments", 5, 1);
    int tenants = a.intValue("tenants", 20, 1);
    int workloads = a.intValue("workloads", 10, 1);
    int cores = Runtime.getRuntime().availableProcessors();
    int threads = a.intValue("threads", cores, 1);
    int warmup = a.intValue("warmup", 20, 0);
    int rounds = a.intValue("store-rounds", 3, 1);
    int incrementalRounds = a.intValue("incremental-rounds", 5, 1);
    String git = a.get("git", "git");
    a.rejectUnknown();
    if (!Files.isExecutable(helm)) {
      throw new IllegalArgumentException("--helm: " + helm + " is not an executable");
    }
    String loadBefore = loadAverage();
    Report report = new Report("delivery");
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("environments", environments);
    params.put("tenants", tenants);
    params.put("workloads", workloads);
    params.put("threads", threads);
    params.put("warmup", warmup);
    params.put("storeRounds", rounds);
    params.put("incrementalRounds", incrementalRounds);
    params.put("helm", helmVersion(helm));
    params.put("git", command(work.getParent(), List.of(git, "--version")).trim());
    // The render worker pool's settings (unset: the defaults of RenderWorkers.Config).
    Map<String, String> renderEnv = new TreeMap<>();
    RENDER_VARIABLES.forEach(v -> renderEnv.put(v, Objects.requireNonNullElse(System.getenv(v), "")));
    params.put("renderWorkers", renderEnv);
    report.put("parameters", params);
    Map<String, Object> loads = new LinkedHashMap<>();
    loads.put("start", loadBefore);
    report.put("loadAverage", loads);

    System.out.printf(
        Locale.ROOT, "Machine: %d cores, load average %s before start, CPU busy before start %s%%%n",
        cores, loadBefore, System.getenv().getOrDefault("BENCH_CPU_BUSY_BEFORE", "?"));
    System.out.printf(Locale.ROOT, "Render workers: %s%n", renderEnv);
    double load1 = Double.parseDouble(loadBefore.split(" ")[0]);
    if (load1 >= 0.5 * cores) {
      System.out.printf(
          Locale.ROOT, "warning: load average %.2f on %d cores: other work is running, figures will be noisy%n",
          load1, cores);
    }

    wipe(work);
    DeliveryScenario.Chart chart = DeliveryScenario.pack(chartDir);
    ProjectSnapshot snapshot = DeliveryScenario.snapshot(environments, tenants, workloads, chart);
    ChartSource charts =
        digest -> {
          if (!digest.equals(chart.digest())) {
            throw new IllegalStateException("no chart with digest " + digest);
          }
          return chart.archive();
        };

    // ---- plan ------------------------------------------------------------------------------
    long t0 = System.nanoTime();
    List<Unit> units = DeliveryPlanner.plan(snapshot);
    long planCold = System.nanoTime() - t0;
    long[] planWarm = new long[20];
    for (int i = 0; i < planWarm.length; i++) {
      long s = System.nanoTime();
      DeliveryPlanner.plan(snapshot);
      planWarm[i] = System.nanoTime() - s;
    }
    int expected = environments * tenants * workloads;
    if (units.size() != expected) {
      throw new IllegalStateException("the planner made " + units.size() + " units, expected " + expected);
    }
    System.out.printf(
        Locale.ROOT, "%nPlanned %d units (%d environments x %d tenants x %d workloads, chart %s %s, %d bytes) in %s ms (warm p50 %s ms)%n",
        units.size(), environments, tenants, workloads, chart.name(), chart.version(), chart.archive().length,
        Table.ms(planCold / 1e6), Table.ms(Stats.ofNanos(planWarm).p50()));
    Map<String, Object> plan = new LinkedHashMap<>();
    plan.put("units", units.size());
    plan.put("coldMs", Stats.round(planCold / 1e6));
    plan.put("warm", Stats.ofNanos(planWarm).toMap());
    report.put("plan", plan);

    // ---- GitOpsHQ: render, write, commit ---------------------------------------------------------
    Renderer renderer = new Renderer();
    long firstRender = 0;
    List<Unit> warmUnits = units.subList(0, Math.min(warmup, units.size()));
    List<SortedMap<String, byte[]>> warmRendered = new ArrayList<>();
    for (int i = 0; i < warmUnits.size(); i++) {
      long s = System.nanoTime();
      warmRendered.add(renderer.render(warmUnits.get(i), charts));
      if (i == 0) {
        firstRender = System.nanoTime() - s;
      }
    }
    System.out.printf(
        Locale.ROOT, "Warm-up: %d renders (the first, with the first render worker starting: %s ms)%n",
        warmUnits.size(), Table.ms(firstRender / 1e6));

    loads.put("gitopshqRender1", loadAverage());
    List<SortedMap<String, byte[]>> rendered1 = new ArrayList<>();
    Pass render1 = renderAll(renderer, units, charts, 1, rendered1);
    int files = rendered1.stream().mapToInt(Map::size).sum();
    long bytes = rendered1.stream().flatMap(m -> m.values().stream()).mapToLong(b -> b.length).sum();
    System.out.printf(Locale.ROOT, "Rendered %d files, %d bytes%n", files, bytes);

    try (ProjectRepos repos = new ProjectRepos(work.resolve("repos"))) {
      if (!warmUnits.isEmpty()) {
        // JGit's classes and JIT warm up on a project of their own, so run 1 measures the work.
        repos.create(DeliveryScenario.ORG, DeliveryScenario.WARMUP_PROJECT);
        store(repos, DeliveryScenario.WARMUP_PROJECT, warmUnits, warmRendered, "warm-up");
      }
      repos.create(DeliveryScenario.ORG, DeliveryScenario.PROJECT);
      loads.put("gitopshqCommit1", loadAverage());
      Store store1 = store(repos, DeliveryScenario.PROJECT, units, rendered1, "run 1");
      if (!store1.result().changed() || store1.result().changedPaths() != files) {
        throw new IllegalStateException(
            "the first commit changed " + store1.result().changedPaths() + " paths, expected " + files);
      }

      loads.put("gitopshqRenderN", loadAverage());
      List<SortedMap<String, byte[]>> rendered2 = new ArrayList<>();
      Pass renderN = renderAll(renderer, units, charts, threads, rendered2);
      int sameRenders = 0;
      for (int i = 0; i < units.size(); i++) {
        if (sameFiles(rendered1.get(i), rendered2.get(i))) {
          sameRenders++;
        }
      }
      loads.put("gitopshqCommit2", loadAverage());
      Store store2 = store(repos, DeliveryScenario.PROJECT, units, rendered2, "run 2");

      // ---- delivery generation: full, then one value changed ---------------------------------
      loads.put("generation", loadAverage());
      Generations generations =
          generations(repos, snapshot, renderer, charts, threads, incrementalRounds, units.size());

      // A reference for where the store's time goes: the same objects written as one pack.
      loads.put("jgitPack", loadAverage());
      Map<String, Object> pack = onePack(work.resolve("one-pack.git"), units, rendered1, store1.renderedTree());

      // ---- helm CLI --------------------------------------------------------------------------
      Path helmDir = work.resolve("helm");
      Path chartFile = helmDir.resolve(chart.name() + "-" + chart.version() + ".tgz");
      write(chartFile, chart.archive());
      for (int i = 0; i < units.size(); i++) {
        write(helmDir.resolve("units").resolve(Integer.toString(i)).resolve("values.json"),
            JsonHttp.bytes(units.get(i).values()));
      }
      Map<String, String> helmEnv = Map.of(
          "HELM_CACHE_HOME", helmDir.resolve("home/cache").toString(),
          "HELM_CONFIG_HOME", helmDir.resolve("home/config").toString(),
          "HELM_DATA_HOME", helmDir.resolve("home/data").toString());
      for (int i = 0; i < Math.min(Math.min(warmup, 5), units.size()); i++) {
        helmTemplate(helm, helmDir, chartFile, units.get(i), i, helmEnv);
      }
      loads.put("helm1", loadAverage());
      Pass helm1 = helmAll(helm, helmDir, chartFile, units, 1, helmEnv);
      loads.put("helmN", loadAverage());
      Pass helmN = helmAll(helm, helmDir, chartFile, units, threads, helmEnv);
      Compare compare = compare(units, rendered1, helmDir);

      // ---- GitOpsHQ store vs git CLI ---------------------------------------------------------
      // Each round commits the same files twice, into a fresh project repository and with the git
      // CLI into a fresh repository, in alternating order, so a busy phase of a shared machine
      // hits both alike; the comparison uses the medians.
      loads.put("storeVsGit", loadAverage());
      List<Store> ourRounds = new ArrayList<>();
      List<GitRun> gitRounds = new ArrayList<>();
      for (int r = 1; r <= rounds; r++) {
        UUID project = DeliveryScenario.roundProject(r);
        repos.create(DeliveryScenario.ORG, project);
        Path gitDir = work.resolve("git-cli-" + r);
        if (r % 2 == 1) {
          ourRounds.add(store(repos, project, units, rendered1, "round " + r));
          gitRounds.add(gitCli(git, gitDir, units, rendered1, store1.renderedTree()));
        } else {
          gitRounds.add(gitCli(git, gitDir, units, rendered1, store1.renderedTree()));
          ourRounds.add(store(repos, project, units, rendered1, "round " + r));
        }
      }
      loads.put("end", loadAverage());

      List<String[]> checks = new ArrayList<>();
      check(checks, "run 1 commits every file", store1.result().changed() && store1.result().changedPaths() == files);
      check(checks, "run 2 (same input) commits nothing: changed=false", !store2.result().changed());
      check(checks, "run 2 leaves the branch where run 1 put it",
          Objects.equals(store1.result().commit(), store2.result().commit()));
      check(checks, "renders with 1 and " + threads + " threads are identical", sameRenders == units.size());
      check(checks, "helm CLI objects = GitOpsHQ objects for every unit", compare.same() == units.size());
      check(checks, "git CLI commits the same rendered/ tree as GitOpsHQ (every round)",
          gitRounds.stream().allMatch(GitRun::sameTree));
      check(checks, "every round's GitOpsHQ commit has that rendered/ tree",
          ourRounds.stream().allMatch(o -> Objects.equals(o.renderedTree(), store1.renderedTree())));
      check(checks, "git add -A finds nothing new after the commit", gitRounds.stream().allMatch(GitRun::clean));
      check(checks, "the one-pack reference has the same tree", Boolean.TRUE.equals(pack.get("sameTreeAsGitopshq")));
      check(checks, "full generation renders every unit", generations.full().rendered() == units.size());
      check(checks, "each incremental generation renders exactly the one changed unit and commits it",
          generations.incremental().stream().allMatch(g -> g.rendered() == 1 && g.changedUnits() == 1
              && g.commit().changed()));
      check(checks, "the last incremental rendered/ tree = a full generation of the same configuration",
          generations.reference().renderedTree() != null
              && generations.reference().renderedTree().equals(generations.incremental().getLast().renderedTree()));
      check(checks, "the full generation's rendered/ tree = store run 1's", Objects.equals(
          generations.full().renderedTree(), store1.renderedTree()));

      // ---- output ----------------------------------------------------------------------------
      Map<String, Object> gitopshq = new LinkedHashMap<>();
      gitopshq.put("firstRenderMs", Stats.round(firstRender / 1e6));
      gitopshq.put("render1", render1.toMap());
      gitopshq.put("renderN", renderN.toMap());
      gitopshq.put("files", files);
      gitopshq.put("bytes", bytes);
      gitopshq.put("store1", store1.toMap());
      gitopshq.put("store2", store2.toMap());
      gitopshq.put("storeRounds", ourRounds.stream().map(Store::toMap).toList());
      gitopshq.put("identicalRenders", sameRenders);
      gitopshq.put("onePackReference", pack);
      gitopshq.put("generation", generations.toMap());
      report.put("gitopshq", gitopshq);
      Map<String, Object> helmCli = new LinkedHashMap<>();
      helmCli.put("render1", helm1.toMap());
      helmCli.put("renderN", helmN.toMap());
      helmCli.put("sameObjectsAsGitopshq", compare.same());
      helmCli.put("firstDifference", compare.firstDifference());
      report.put("helmCli", helmCli);
      report.put("gitCli", Map.of("rounds", gitRounds.stream().map(GitRun::toMap).toList()));

      printRenders(units.size(), render1, renderN, helm1, helmN, files, bytes);
      printStore(units.size(), files, store1, store2, ourRounds, gitRounds, pack);
      printGenerations(generations);
      System.out.println("\nLoad average (1, 5, 15 min) when each phase started:");
      loads.forEach((phase, load) -> System.out.printf(Locale.ROOT, "  %-16s %s%n", phase, load));
      Map<String, Object> ratios = ratios(render1, renderN, helm1, helmN, ourRounds, gitRounds);
      ratios.putAll(generationRatios(generations, helmN));
      report.put("ratios", ratios);
      System.out.printf(Locale.ROOT, "%nChecks%n");
      Table ct = new Table("check", "result");
      checks.forEach(c -> ct.row(c[0], c[1]));
      System.out.print(ct);
      if (compare.firstDifference() != null) {
        System.out.println("  first helm CLI difference: " + compare.firstDifference());
      }
      Map<String, Object> checkMap = new LinkedHashMap<>();
      checks.forEach(c -> checkMap.put(c[0], c[1].equals("ok")));
      report.put("checks", checkMap);
      report.write(out);
      System.out.println("\nReport: " + out);
      if (checks.stream().anyMatch(c -> !c[1].equals("ok"))) {
        throw new IllegalStateException("a check failed (see Checks above)");
      }
    }
  }

  private static void check(List<String[]> checks, String what, boolean ok) {
    checks.add(new String[] {what, ok ? "ok" : "FAILED"});
  }

  // ---- GitOpsHQ ------------------------------------------------------------------------------

  private static Pass renderAll(
      Renderer renderer, List<Unit> units, ChartSource charts, int threads, List<SortedMap<String, byte[]>> results) {
    long[] nanos = new long[units.size()];
    AtomicReferenceArray<SortedMap<String, byte[]>> out = new AtomicReferenceArray<>(units.size());
    long wall = parallel(units.size(), threads, i -> {
      long s = System.nanoTime();
      SortedMap<String, byte[]> files = renderer.render(units.get(i), charts);
      nanos[i] = System.nanoTime() - s;
      out.set(i, files);
    });
    for (int i = 0; i < units.size(); i++) {
      results.add(out.get(i));
    }
    Pass p = new Pass("GitOpsHQ Renderer (render workers)", threads, wall, nanos);
    System.out.printf(
        Locale.ROOT, "GitOpsHQ: rendered %d units with %d thread(s) in %s ms: %.1f renders/s%n",
        units.size(), threads, Table.ms(wall / 1e6), p.perSecond());
    return p;
  }

  /** The generation phase: a full generation, incremental ones, and a full one to compare. */
  private record Generations(
      GenerationRun.Result full, List<GenerationRun.Result> incremental, GenerationRun.Result reference) {
    /** The faster of the two full generations: the ratio is not flattered by a slow one. */
    long fullNanos() {
      return Math.min(full.totalNanos(), reference.totalNanos());
    }

    double incrementalMedianMs() {
      return Stats.ofNanos(incremental.stream().mapToLong(GenerationRun.Result::totalNanos).toArray()).p50();
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("full", full.toMap());
      m.put("incremental", incremental.stream().map(GenerationRun.Result::toMap).toList());
      m.put("fullOfTheLastChange", reference.toMap());
      m.put("incrementalMedianMs", Stats.round(incrementalMedianMs()));
      m.put("fullMs", Stats.round(fullNanos() / 1e6));
      return m;
    }
  }

  /**
   * A full generation of the project into a repository of its own, then {@code rounds} incremental
   * ones, each changing one value of one unit (env MAX_CONNECTIONS: 101, 102, ...), then a full generation of
   * the last configuration into a fresh repository, whose rendered/ tree must be the incremental
   * one's.
   */
  private static Generations generations(
      ProjectRepos repos, ProjectSnapshot snapshot, Renderer renderer, ChartSource charts, int threads,
      int rounds, int units) {
    repos.create(DeliveryScenario.ORG, DeliveryScenario.GENERATION_PROJECT);
    GenerationRun.Result full = GenerationRun.generate(
        repos, DeliveryScenario.GENERATION_PROJECT, snapshot, renderer, charts, threads, Map.of());
    print("full", full);
    List<GenerationRun.Result> incremental = new ArrayList<>();
    Map<String, GenerationRun.Recorded> recorded = full.recorded();
    ProjectSnapshot changed = snapshot;
    for (int r = 1; r <= rounds; r++) {
      changed = DeliveryScenario.withMaxConnections(snapshot, 100 + r);
      GenerationRun.Result g = GenerationRun.generate(
          repos, DeliveryScenario.GENERATION_PROJECT, changed, renderer, charts, threads, recorded);
      print("incremental " + r, g);
      incremental.add(g);
      recorded = g.recorded();
    }
    repos.create(DeliveryScenario.ORG, DeliveryScenario.GENERATION_REFERENCE_PROJECT);
    GenerationRun.Result reference = GenerationRun.generate(
        repos, DeliveryScenario.GENERATION_REFERENCE_PROJECT, changed, renderer, charts, threads, Map.of());
    print("full, last change", reference);
    if (full.units() != units) {
      throw new IllegalStateException("the generation planned " + full.units() + " units, expected " + units);
    }
    return new Generations(full, incremental, reference);
  }

  private static void print(String label, GenerationRun.Result g) {
    System.out.printf(
        Locale.ROOT, "Generation (%s): %d units, %d rendered, %d reused: plan %s ms, fingerprint %s ms,"
            + " render+writeTrees %s ms, commit %s ms, total %s ms (%d units changed)%n",
        label, g.units(), g.rendered(), g.reused(), Table.ms(g.planNanos() / 1e6),
        Table.ms(g.fingerprintNanos() / 1e6), Table.ms(g.renderStoreNanos() / 1e6),
        Table.ms(g.commitNanos() / 1e6), Table.ms(g.totalNanos() / 1e6), g.changedUnits());
  }

  private static void printGenerations(Generations g) {
    System.out.printf(
        Locale.ROOT, "%nDelivery generation of %d units: full, then one value of one unit changed%n",
        g.full().units());
    Table t = new Table("generation", "rendered", "reused", "plan ms", "fingerprint+reuse ms",
        "render+writeTrees ms", "assemble+commit ms", "total ms");
    List<Object[]> rows = new ArrayList<>();
    rows.add(new Object[] {"full", g.full()});
    for (int i = 0; i < g.incremental().size(); i++) {
      rows.add(new Object[] {"incremental " + (i + 1), g.incremental().get(i)});
    }
    rows.add(new Object[] {"full, of the last change (fresh repository)", g.reference()});
    for (Object[] row : rows) {
      GenerationRun.Result r = (GenerationRun.Result) row[1];
      t.row(row[0], r.rendered(), r.reused(), r.planNanos() / 1e6, r.fingerprintNanos() / 1e6,
          r.renderStoreNanos() / 1e6, r.commitNanos() / 1e6, r.totalNanos() / 1e6);
    }
    System.out.print(t);
  }

  private static Map<String, Object> generationRatios(Generations g, Pass helmN) {
    double fullMs = g.fullNanos() / 1e6;
    double incrementalMs = g.incrementalMedianMs();
    double helmMs = helmN.wallNanos() / 1e6;
    System.out.printf(Locale.ROOT, "%nDelivery generation ratios%n");
    Table t = new Table("comparison", "ms", "against ms", "ratio");
    t.row("incremental (median) / full generation (faster of two); target <= 5 %", Table.ms(incrementalMs),
        Table.ms(fullMs), String.format(Locale.ROOT, "%.1f %%", 100 * incrementalMs / fullMs));
    t.row("helm CLI, " + helmN.threads() + " thread(s), templates only / full generation, plan to commit; target >= 8x",
        Table.ms(helmMs), Table.ms(fullMs), fmt(helmMs / fullMs) + "x");
    System.out.print(t);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("incrementalOverFullPercent", Stats.round(100 * incrementalMs / fullMs));
    m.put("helmCliTemplatesOverFullGeneration", Stats.round(helmMs / fullMs));
    return m;
  }

  /** Units per render batch: the hub's default {@code GITOPSHQ_DELIVERY_BATCH_SIZE}. */
  private static final int BATCH = 25;

  /**
   * Writes every unit's files as a tree, a pack per batch of {@link #BATCH}, then commits them all
   * in one commit of {@code PutTree} edits and lets the store repack if due, as delivery
   * generation does.
   */
  private static Store store(
      ProjectRepos repos, UUID project, List<Unit> units, List<SortedMap<String, byte[]>> rendered, String label) {
    long s = System.nanoTime();
    List<TreeEdit> edits = new ArrayList<>(units.size());
    // As the render activity does: one writeTrees (one pack) per batch of BATCH units.
    for (int from = 0; from < units.size(); from += BATCH) {
      int to = Math.min(units.size(), from + BATCH);
      List<ObjectId> trees =
          repos.writeTrees(DeliveryScenario.ORG, project, rendered.subList(from, to));
      for (int i = from; i < to; i++) {
        edits.add(TreeEdit.tree(units.get(i).path(), trees.get(i - from)));
      }
    }
    long writeTrees = System.nanoTime() - s;
    String message =
        new CommitMessage(
                "Delivery of " + units.size() + " units", "", "bench (benchmark)",
                Map.of("project", "shop"), "delivery.generated")
            .format();
    s = System.nanoTime();
    CommitResult result =
        repos.commit(
            DeliveryScenario.ORG, project, ProjectRepos.MAIN, null, edits,
            new Ident("bench", "bench@users.gitopshq.invalid"), message);
    repos.maintain(DeliveryScenario.ORG, project); // as the generation's commit does
    long commit = System.nanoTime() - s;
    ObjectId renderedTree =
        result.commit() == null
            ? null
            : repos.treeAt(DeliveryScenario.ORG, project, result.commit(), "rendered").orElse(null);
    System.out.printf(
        Locale.ROOT, "GitOpsHQ (%s): writeTrees of %d units %s ms, commit %s ms (changed=%s, %d paths)%n",
        label, units.size(), Table.ms(writeTrees / 1e6), Table.ms(commit / 1e6), result.changed(),
        result.changedPaths());
    return new Store(writeTrees, commit, result, renderedTree);
  }

  private static boolean sameFiles(SortedMap<String, byte[]> a, SortedMap<String, byte[]> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    for (Map.Entry<String, byte[]> e : a.entrySet()) {
      if (!Arrays.equals(e.getValue(), b.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Not the product's path: every blob, tree and the commit through one JGit {@code PackInserter}
   * into a fresh bare repository (one pack file instead of one loose object file per blob and
   * tree, as {@link ProjectRepos} writes). It shows how much of the store's time is writing loose
   * objects.
   */
  private static Map<String, Object> onePack(
      Path dir, List<Unit> units, List<SortedMap<String, byte[]>> rendered, ObjectId expectedTree) {
    try (Repository repo = new FileRepositoryBuilder().setGitDir(dir.toFile()).setBare().build()) {
      repo.create(true);
      long s = System.nanoTime();
      ObjectId tree;
      try (PackInserter inserter = ((ObjectDirectory) repo.getObjectDatabase()).newPackInserter()) {
        DirCache index = DirCache.newInCore();
        DirCacheBuilder builder = index.builder();
        for (int i = 0; i < units.size(); i++) {
          for (Map.Entry<String, byte[]> f : rendered.get(i).entrySet()) {
            DirCacheEntry entry = new DirCacheEntry(units.get(i).path() + "/" + f.getKey());
            entry.setFileMode(FileMode.REGULAR_FILE);
            entry.setObjectId(inserter.insert(Constants.OBJ_BLOB, f.getValue()));
            builder.add(entry);
          }
        }
        builder.finish();
        tree = index.writeTree(inserter);
        CommitBuilder commit = new CommitBuilder();
        commit.setTreeId(tree);
        PersonIdent who = new PersonIdent("bench", "bench@users.gitopshq.invalid");
        commit.setAuthor(who);
        commit.setCommitter(who);
        commit.setMessage("Delivery of " + units.size() + " units");
        ObjectId id = inserter.insert(commit);
        inserter.flush();
        RefUpdate update = repo.updateRef("refs/heads/main");
        update.setNewObjectId(id);
        update.setExpectedOldObjectId(ObjectId.zeroId());
        update.update();
      }
      long total = System.nanoTime() - s;
      ObjectId rendered1 = null;
      try (TreeWalk tw = TreeWalk.forPath(repo, "rendered", tree)) {
        if (tw != null) {
          rendered1 = tw.getObjectId(0);
        }
      }
      boolean same = rendered1 != null && rendered1.equals(expectedTree);
      System.out.printf(
          Locale.ROOT, "reference: the same objects as one JGit pack in %s ms (same tree: %s)%n",
          Table.ms(total / 1e6), same ? "yes" : "NO");
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("totalMs", Stats.round(total / 1e6));
      m.put("sameTreeAsGitopshq", same);
      return m;
    } catch (IOException e) {
      throw new UncheckedIOException("the one-pack reference failed", e);
    }
  }

  // ---- helm CLI ------------------------------------------------------------------------------

  private static Pass helmAll(
      Path helm, Path helmDir, Path chartFile, List<Unit> units, int threads, Map<String, String> env) {
    long[] nanos = new long[units.size()];
    long wall = parallel(units.size(), threads, i -> {
      long s = System.nanoTime();
      helmTemplate(helm, helmDir, chartFile, units.get(i), i, env);
      nanos[i] = System.nanoTime() - s;
    });
    Pass p = new Pass("helm template (one process per unit)", threads, wall, nanos);
    System.out.printf(
        Locale.ROOT, "helm CLI: rendered %d units with %d process(es) at a time in %s ms: %.1f renders/s%n",
        units.size(), threads, Table.ms(wall / 1e6), p.perSecond());
    return p;
  }

  /** {@code helm template <service> <chart.tgz> -n <namespace> -f values.json > out.yaml}. */
  private static void helmTemplate(
      Path helm, Path helmDir, Path chartFile, Unit unit, int index, Map<String, String> env) {
    Path dir = helmDir.resolve("units").resolve(Integer.toString(index));
    ProcessBuilder pb =
        new ProcessBuilder(
                helm.toString(), "template", unit.service(), chartFile.toString(),
                "-n", unit.namespace(), "-f", dir.resolve("values.json").toString())
            .directory(dir.toFile())
            .redirectOutput(dir.resolve("out.yaml").toFile())
            .redirectError(dir.resolve("err.txt").toFile());
    pb.environment().putAll(env);
    int rc = waitFor(pb);
    if (rc != 0) {
      throw new IllegalStateException(
          "helm template for " + unit.path() + " exited with " + rc + ": " + readString(dir.resolve("err.txt")));
    }
  }

  /** How many units' helm CLI output holds the same objects as GitOpsHQ's render. */
  private record Compare(int same, String firstDifference) {}

  private static Compare compare(List<Unit> units, List<SortedMap<String, byte[]>> rendered, Path helmDir) {
    int same = 0;
    String first = null;
    for (int i = 0; i < units.size(); i++) {
      // helm template -n does not write metadata.namespace; the hub writes the unit's namespace
      // into every namespaced object that names none, so the CLI's objects get it here too.
      Map<String, JsonNode> cli =
          withNamespace(
              objects(List.of(readBytes(helmDir.resolve("units/" + i + "/out.yaml")))),
              units.get(i).namespace());
      Map<String, JsonNode> ours = objects(List.copyOf(rendered.get(i).values()));
      if (cli.equals(ours)) {
        same++;
      } else if (first == null) {
        first = units.get(i).path() + ": helm CLI " + cli.keySet() + " vs GitOpsHQ " + ours.keySet()
            + difference(cli, ours);
      }
    }
    return new Compare(same, first);
  }

  private static String difference(Map<String, JsonNode> cli, Map<String, JsonNode> ours) {
    for (Map.Entry<String, JsonNode> e : cli.entrySet()) {
      JsonNode o = ours.get(e.getKey());
      if (o != null && !o.equals(e.getValue())) {
        return "; " + e.getKey() + " differs: helm CLI " + abbreviate(e.getValue().toString())
            + " vs GitOpsHQ " + abbreviate(o.toString());
      }
    }
    return "";
  }

  /**
   * The objects with {@code metadata.namespace} set where a namespaced kind (by {@link
   * dev.gitopshq.agent.v1.KindScopes}; an unknown kind counts as namespaced) names none, keyed
   * again by {@code kind/namespace/name}.
   */
  private static Map<String, JsonNode> withNamespace(Map<String, JsonNode> objects, String namespace) {
    Map<String, JsonNode> out = new TreeMap<>();
    for (JsonNode doc : objects.values()) {
      JsonNode metadata = doc.path("metadata");
      boolean namespaced =
          KindScopes.namespaced(doc.path("apiVersion").asText(), doc.path("kind").asText())
              .orElse(true);
      if (namespaced && metadata.isObject() && metadata.path("namespace").asText().isEmpty()) {
        ((ObjectNode) metadata).put("namespace", namespace);
      }
      out.put(doc.path("kind").asText() + "/" + doc.path("metadata").path("namespace").asText()
          + "/" + doc.path("metadata").path("name").asText(), doc);
    }
    return out;
  }

  /** The Kubernetes objects in YAML streams, by {@code kind/namespace/name}. */
  private static Map<String, JsonNode> objects(List<byte[]> streams) {
    Map<String, JsonNode> out = new TreeMap<>();
    for (byte[] stream : streams) {
      try (MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(stream)) {
        while (docs.hasNext()) {
          JsonNode doc = docs.next();
          if (doc == null || doc.isNull() || doc.isMissingNode() || !doc.has("kind")) {
            continue;
          }
          String key = doc.path("kind").asText() + "/" + doc.path("metadata").path("namespace").asText()
              + "/" + doc.path("metadata").path("name").asText();
          out.put(key, doc);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot parse rendered YAML", e);
      }
    }
    return out;
  }

  // ---- git CLI -------------------------------------------------------------------------------

  /** One {@code git add -A && git commit} of the rendered files into a fresh repository. */
  private record GitRun(
      long writeFilesNanos, long addNanos, long commitNanos, long noChangeNanos, boolean clean, int files,
      String tree, boolean sameTree) {
    long addCommitNanos() {
      return addNanos + commitNanos;
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("writeFilesMs", Stats.round(writeFilesNanos / 1e6));
      m.put("addMs", Stats.round(addNanos / 1e6));
      m.put("commitMs", Stats.round(commitNanos / 1e6));
      m.put("addCommitMs", Stats.round(addCommitNanos() / 1e6));
      m.put("noChangeAddAndCheckMs", Stats.round(noChangeNanos / 1e6));
      m.put("noChangeClean", clean);
      m.put("files", files);
      m.put("renderedTree", tree);
      m.put("sameTreeAsGitopshq", sameTree);
      return m;
    }
  }

  private static GitRun gitCli(
      String git, Path dir, List<Unit> units, List<SortedMap<String, byte[]>> rendered, ObjectId gitopshqTree) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("GIT_CONFIG_GLOBAL", "/dev/null");
    env.put("GIT_AUTHOR_NAME", "bench");
    env.put("GIT_AUTHOR_EMAIL", "bench@users.gitopshq.invalid");
    env.put("GIT_COMMITTER_NAME", "GitOpsHQ");
    env.put("GIT_COMMITTER_EMAIL", "hub@gitopshq.invalid");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    run(dir, env, git, "init", "-q", "-b", "main");
    long s = System.nanoTime();
    for (int i = 0; i < units.size(); i++) {
      Path unitDir = dir.resolve(units.get(i).path());
      for (Map.Entry<String, byte[]> f : rendered.get(i).entrySet()) {
        write(unitDir.resolve(f.getKey()), f.getValue());
      }
    }
    long writeFiles = System.nanoTime() - s;
    s = System.nanoTime();
    run(dir, env, git, "add", "-A");
    long add = System.nanoTime() - s;
    s = System.nanoTime();
    run(dir, env, git, "commit", "-q", "--no-verify", "-m", "Delivery of " + units.size() + " units");
    long commit = System.nanoTime() - s;
    s = System.nanoTime();
    run(dir, env, git, "add", "-A");
    boolean clean = waitFor(processBuilder(dir, env, git, "diff", "--cached", "--quiet")) == 0;
    long noop = System.nanoTime() - s;
    String tree = command(dir, List.of(git, "rev-parse", "HEAD:rendered")).trim();
    int tracked = command(dir, List.of(git, "ls-files")).split("\n").length;
    boolean sameTree = gitopshqTree != null && tree.equals(gitopshqTree.name());
    System.out.printf(
        Locale.ROOT, "git CLI: wrote %d files in %s ms, git add -A %s ms, git commit %s ms; same rendered/ tree as GitOpsHQ: %s%n",
        tracked, Table.ms(writeFiles / 1e6), Table.ms(add / 1e6), Table.ms(commit / 1e6), sameTree ? "yes" : "NO");
    return new GitRun(writeFiles, add, commit, noop, clean, tracked, tree, sameTree);
  }

  // ---- output --------------------------------------------------------------------------------

  private static void printRenders(
      int units, Pass render1, Pass renderN, Pass helm1, Pass helmN, int files, long bytes) {
    System.out.printf(Locale.ROOT, "%nRendering %d units (%d files, %d KiB)%n", units, files, bytes / 1024);
    Table t = new Table("renderer", "threads", "wall ms", "renders/s", "p50 ms", "p90 ms", "p99 ms", "max ms");
    for (Pass p : List.of(render1, renderN, helm1, helmN)) {
      Stats s = p.stats();
      t.row(p.label(), p.threads(), p.wallNanos() / 1e6, String.format(Locale.ROOT, "%.1f", p.perSecond()),
          s.p50(), s.p90(), s.p99(), s.max());
    }
    System.out.print(t);
  }

  private static void printStore(
      int units, int files, Store store1, Store store2, List<Store> ours, List<GitRun> git, Map<String, Object> pack) {
    System.out.printf(Locale.ROOT, "%nCommitting %d files of %d units%n", files, units);
    Table r = new Table("GitOpsHQ (ProjectRepos)", "writeTrees (" + units + " units, a pack per " + BATCH + ") ms", "commit ms", "total ms", "result");
    r.row("run 1, after the 1-thread renders", store1.writeTreesNanos() / 1e6, store1.commitNanos() / 1e6,
        store1.totalNanos() / 1e6,
        "changed=" + store1.result().changed() + ", " + store1.result().changedPaths() + " paths");
    r.row("run 2, same input again", store2.writeTreesNanos() / 1e6, store2.commitNanos() / 1e6,
        store2.totalNanos() / 1e6,
        "changed=" + store2.result().changed() + ", " + store2.result().changedPaths() + " paths");
    System.out.print(r);

    System.out.printf(
        Locale.ROOT, "%nGitOpsHQ vs git CLI, %d rounds into fresh repositories (alternating order)%n", ours.size());
    Table c = new Table("step", "median ms", "min ms", "max ms");
    c.row("GitOpsHQ: writeTrees of " + units + " units, a pack per " + BATCH, median(ours, Store::writeTreesNanos), min(ours, Store::writeTreesNanos),
        max(ours, Store::writeTreesNanos));
    c.row("GitOpsHQ: commit of " + units + " PutTree edits", median(ours, Store::commitNanos),
        min(ours, Store::commitNanos), max(ours, Store::commitNanos));
    c.row("GitOpsHQ: writeTrees + commit", median(ours, Store::totalNanos), min(ours, Store::totalNanos),
        max(ours, Store::totalNanos));
    c.row("git CLI: git add -A", median(git, GitRun::addNanos), min(git, GitRun::addNanos), max(git, GitRun::addNanos));
    c.row("git CLI: git commit", median(git, GitRun::commitNanos), min(git, GitRun::commitNanos),
        max(git, GitRun::commitNanos));
    c.row("git CLI: add + commit", median(git, GitRun::addCommitNanos), min(git, GitRun::addCommitNanos),
        max(git, GitRun::addCommitNanos));
    c.row("git CLI: writing the files first (not counted)", median(git, GitRun::writeFilesNanos),
        min(git, GitRun::writeFilesNanos), max(git, GitRun::writeFilesNanos));
    c.row("git CLI: add -A + diff --cached again (no change)", median(git, GitRun::noChangeNanos),
        min(git, GitRun::noChangeNanos), max(git, GitRun::noChangeNanos));
    double packMs = (double) pack.get("totalMs");
    c.row("reference: JGit, the same objects as one pack (once)", packMs, packMs, packMs);
    System.out.print(c);
  }

  private static Map<String, Object> ratios(
      Pass render1, Pass renderN, Pass helm1, Pass helmN, List<Store> ours, List<GitRun> git) {
    double r1 = render1.perSecond() / helm1.perSecond();
    double rN = renderN.perSecond() / helmN.perSecond();
    double gitopshqMs = median(ours, Store::totalNanos);
    double gitMs = median(git, GitRun::addCommitNanos);
    System.out.printf(Locale.ROOT, "%nRatios%n");
    Table t = new Table("comparison", "GitOpsHQ", "CLI", "ratio");
    t.row("renders/s, 1 thread (GitOpsHQ / helm CLI; > 1: GitOpsHQ faster)", fmt(render1.perSecond()),
        fmt(helm1.perSecond()), fmt(r1) + "x");
    t.row("renders/s, " + renderN.threads() + " threads (GitOpsHQ / helm CLI; > 1: GitOpsHQ faster)",
        fmt(renderN.perSecond()), fmt(helmN.perSecond()), fmt(rN) + "x");
    t.row("median ms, writeTrees + commit vs git add + commit (GitOpsHQ / git; < 1: GitOpsHQ faster)",
        Table.ms(gitopshqMs), Table.ms(gitMs), fmt(gitopshqMs / gitMs) + "x");
    System.out.print(t);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rendersPerSecond1ThreadGitopshqOverHelm", Stats.round(r1));
    m.put("rendersPerSecondNThreadsGitopshqOverHelm", Stats.round(rN));
    m.put("storeMedianMsGitopshq", Stats.round(gitopshqMs));
    m.put("addCommitMedianMsGit", Stats.round(gitMs));
    m.put("commitTimeGitopshqOverGit", Stats.round(gitopshqMs / gitMs));
    return m;
  }

  private static <T> double median(List<T> items, ToLongFunction<T> nanos) {
    return Stats.ofNanos(items.stream().mapToLong(nanos).toArray()).p50();
  }

  private static <T> double min(List<T> items, ToLongFunction<T> nanos) {
    return items.stream().mapToLong(nanos).min().orElse(0) / 1e6;
  }

  private static <T> double max(List<T> items, ToLongFunction<T> nanos) {
    return items.stream().mapToLong(nanos).max().orElse(0) / 1e6;
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.1f", v);
  }

  // ---- helpers -------------------------------------------------------------------------------

  private interface IndexTask {
    void run(int index) throws Exception;
  }

  /** Runs {@code task(0..n-1)} on {@code threads} threads; returns the wall time in nanoseconds. */
  private static long parallel(int n, int threads, IndexTask task) {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      long s = System.nanoTime();
      List<Future<?>> futures = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        int index = i;
        futures.add(pool.submit(() -> {
          task.run(index);
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      return System.nanoTime() - s;
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(c.getMessage(), c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      pool.shutdownNow();
    }
  }

  private static ProcessBuilder processBuilder(Path dir, Map<String, String> env, String... command) {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().putAll(env);
    return pb;
  }

  private static void run(Path dir, Map<String, String> env, String... command) {
    int rc = waitFor(processBuilder(dir, env, command));
    if (rc != 0) {
      throw new IllegalStateException(String.join(" ", command) + " exited with " + rc);
    }
  }

  private static int waitFor(ProcessBuilder pb) {
    try {
      return pb.start().waitFor();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + pb.command().get(0), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Runs a command and returns its standard output. */
  private static String command(Path dir, List<String> command) {
    try {
      Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + abbreviate(out));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command.get(0), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static String helmVersion(Path helm) {
    return command(helm.toAbsolutePath().getParent(), List.of(helm.toString(), "version", "--short")).trim();
  }

  private static String loadAverage() {
    String s = readString(Path.of("/proc/loadavg"));
    String[] parts = s.trim().split(" ");
    return parts.length >= 3 ? parts[0] + " " + parts[1] + " " + parts[2] : s.trim();
  }

  private static void wipe(Path dir) {
    if (Files.exists(dir)) {
      try (Stream<Path> walk = Files.walk(dir)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot wipe " + dir, e);
      }
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, byte[] content) {
    try {
      Files.createDirectories(file.getParent());
      Files.write(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static byte[] readBytes(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private static String readString(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }

  private static String abbreviate(String s) {
    Objects.requireNonNull(s);
    return s.length() <= 300 ? s : s.substring(0, 300) + "...";
  }
}

package dev.gitopshq.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.generation.DeliveryTree;
import dev.gitopshq.activities.generation.UnitReuse;
import dev.gitopshq.activities.git.CommitMessage;
import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.render.ChartSource;
import dev.gitopshq.activities.render.DeliveryPlanner;
import dev.gitopshq.activities.render.Renderer;
import dev.gitopshq.activities.render.Unit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.jgit.lib.ObjectId;

/**
 * One delivery generation the way the hub's generation activities make it, with the library code
 * and without PostgreSQL or Temporal: plan the snapshot into units (and serialize each unit, as
 * the plan stores it), fingerprint every unit and reuse the previous generation's tree of every
 * unit whose fingerprint is unchanged and whose tree the repository still holds ({@link
 * UnitReuse#decide}, as the plan activity does), render the other units in batches of
 * {@link #BATCH} on {@code threads} threads (each batch's trees written as one pack, {@link
 * ProjectRepos#writeTrees}, as a render activity does), then assemble the unit trees and commit
 * them on main ({@link DeliveryTree#assemble}, {@link ProjectRepos#commit}, {@link
 * ProjectRepos#maintain}), as the commit activity does. The map of recorded units stands in for
 * the {@code generation_units} rows the hub keeps; the database's reads and writes are not timed.
 */
final class GenerationRun {
  /** Units per render batch: the hub's default {@code GITOPSHQ_DELIVERY_BATCH_SIZE}. */
  static final int BATCH = 25;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a generation recorded for one unit (the hub: a {@code generation_units} row). */
  record Recorded(String fingerprint, ObjectId tree) {}

  /** The timings and the outcome of one generation. */
  record Result(
      int units,
      int rendered,
      int reused,
      long planNanos,
      long fingerprintNanos,
      long renderStoreNanos,
      long commitNanos,
      CommitResult commit,
      ObjectId renderedTree,
      int changedUnits,
      Map<String, Recorded> recorded) {
    long totalNanos() {
      return planNanos + fingerprintNanos + renderStoreNanos + commitNanos;
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("units", units);
      m.put("rendered", rendered);
      m.put("reused", reused);
      m.put("planMs", Stats.round(planNanos / 1e6));
      m.put("fingerprintAndReuseMs", Stats.round(fingerprintNanos / 1e6));
      m.put("renderAndWriteTreesMs", Stats.round(renderStoreNanos / 1e6));
      m.put("assembleCommitMaintainMs", Stats.round(commitNanos / 1e6));
      m.put("totalMs", Stats.round(totalNanos() / 1e6));
      m.put("changed", commit.changed());
      m.put("changedPaths", commit.changedPaths());
      m.put("changedUnits", changedUnits);
      m.put("commit", commit.commitName());
      m.put("renderedTree", renderedTree == null ? null : renderedTree.name());
      return m;
    }
  }

  private GenerationRun() {}

  /**
   * Generates {@code snapshot} into {@code project}'s repository.
   *
   * @param previous what the last generation recorded per unit path (empty: a full generation)
   */
  static Result generate(
      ProjectRepos repos,
      UUID project,
      ProjectSnapshot snapshot,
      Renderer renderer,
      ChartSource charts,
      int threads,
      Map<String, Recorded> previous) {
    UUID org = DeliveryScenario.ORG;
    // ---- plan: the units and their stored inputs
    long s = System.nanoTime();
    List<Unit> units = DeliveryPlanner.plan(snapshot);
    long jsonBytes = 0;
    for (Unit u : units) {
      jsonBytes += toJson(u).length();
    }
    long plan = System.nanoTime() - s;
    if (jsonBytes == 0) {
      throw new IllegalStateException("no unit inputs");
    }

    // ---- fingerprint every unit; reuse what is unchanged and still in the repository
    s = System.nanoTime();
    Map<String, ObjectId> earlier = new HashMap<>();
    previous.forEach((path, r) -> earlier.put(UnitReuse.key(path, r.fingerprint()), r.tree()));
    UnitReuse reuse = UnitReuse.decide(repos, org, project, renderer, units, earlier);
    ObjectId[] trees = new ObjectId[units.size()];
    List<Integer> toRender = new ArrayList<>();
    for (int i = 0; i < units.size(); i++) {
      if (reuse.reused(i)) {
        trees[i] = reuse.trees().get(i);
      } else {
        toRender.add(i);
      }
    }
    long fingerprint = System.nanoTime() - s;

    // ---- render the other units, batch by batch, on the worker's threads
    s = System.nanoTime();
    List<List<Integer>> batches = new ArrayList<>();
    for (int from = 0; from < toRender.size(); from += BATCH) {
      batches.add(toRender.subList(from, Math.min(toRender.size(), from + BATCH)));
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (List<Integer> batch : batches) {
        futures.add(
            pool.submit(
                () -> {
                  List<SortedMap<String, byte[]>> files = new ArrayList<>(batch.size());
                  for (int i : batch) {
                    files.add(renderer.render(units.get(i), charts));
                  }
                  List<ObjectId> written = repos.writeTrees(org, project, files);
                  for (int k = 0; k < batch.size(); k++) {
                    trees[batch.get(k)] = written.get(k);
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("a render batch failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      pool.shutdownNow();
    }
    long renderStore = System.nanoTime() - s;

    // ---- commit: assemble the unit trees and commit when they differ from main
    s = System.nanoTime();
    SortedMap<String, ObjectId> unitTrees = new TreeMap<>();
    for (int i = 0; i < units.size(); i++) {
      unitTrees.put(units.get(i).path(), trees[i]);
    }
    DeliveryTree.Assembly assembly = DeliveryTree.assemble(repos, org, project, unitTrees);
    CommitResult commit;
    if (assembly.changes().isEmpty()) {
      ObjectId head = assembly.head().orElse(null);
      commit = new CommitResult(head, head, false, 0);
    } else {
      String message =
          new CommitMessage(
                  "Deliver: " + assembly.changes().summary(units.size()),
                  "",
                  "bench (benchmark)",
                  Map.of("project", "shop"),
                  "delivery.generated")
              .format();
      commit =
          repos.commit(
              org,
              project,
              ProjectRepos.MAIN,
              null,
              assembly.edits(),
              new Ident("bench", "bench@users.gitopshq.invalid"),
              message);
      repos.maintain(org, project);
    }
    long commitNanos = System.nanoTime() - s;

    ObjectId renderedTree =
        commit.commit() == null
            ? null
            : repos.treeAt(org, project, commit.commit(), DeliveryTree.RENDERED).orElse(null);
    Map<String, Recorded> recorded = new HashMap<>();
    for (int i = 0; i < units.size(); i++) {
      recorded.put(units.get(i).path(), new Recorded(reuse.fingerprints().get(i), trees[i]));
    }
    return new Result(
        units.size(),
        toRender.size(),
        units.size() - toRender.size(),
        plan,
        fingerprint,
        renderStore,
        commitNanos,
        commit,
        renderedTree,
        assembly.changes().units().size(),
        recorded);
  }

  private static String toJson(Unit u) {
    try {
      return JSON.writeValueAsString(u);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize unit " + u.path(), e);
    }
  }
}

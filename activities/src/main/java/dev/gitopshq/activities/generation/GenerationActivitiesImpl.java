package dev.gitopshq.activities.generation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.ChartArchiveRow;
import dev.gitopshq.activities.delivery.ChartMapper;
import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.git.CommitMessage;
import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.render.DeliveryPlanner;
import dev.gitopshq.activities.render.PlanException;
import dev.gitopshq.activities.render.RenderException;
import dev.gitopshq.activities.render.Renderer;
import dev.gitopshq.activities.render.Unit;
import dev.gitopshq.workflows.generation.DeliveryGenerationWorkflowImpl;
import dev.gitopshq.workflows.generation.GenerationActivities;
import dev.gitopshq.workflows.generation.GenerationPlan;
import dev.gitopshq.workflows.generation.GenerationRequest;
import dev.gitopshq.workflows.generation.GenerationResult;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The delivery generation activities: plan a project revision into units stored in PostgreSQL,
 * render batches of them into the repository's object store, commit the assembled {@code rendered/}
 * tree on main.
 *
 * <p>Nothing large crosses Temporal: unit inputs live in {@code generation_units}, rendered files
 * are Git blobs and trees as soon as they exist, and only ids and counts are returned.
 *
 * <p>Ordering: every step that decides holds the project's row lock, and a generation whose
 * revision is not newer than the project's generated revision is superseded, so an older generation
 * finishing late never overwrites a newer delivery.
 */
public class GenerationActivitiesImpl implements GenerationActivities {
  private static final Logger log = LoggerFactory.getLogger(GenerationActivitiesImpl.class);

  /** How many units one render activity takes. */
  public static final int DEFAULT_BATCH_SIZE = 25;

  /** The author of every delivery commit. */
  public static final Ident GENERATOR =
      new Ident("GitOpsHQ delivery generator", "delivery@gitopshq.invalid");

  private static final int LISTED_UNITS = 100;
  private static final int CHART_CACHE = 64;

  private final GenerationMapper generations;
  private final ChartMapper chartVersions;
  private final BiFunction<UUID, UUID, ProjectSnapshot> snapshots;
  private final Renderer renderer;
  private final ProjectRepos repos;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;
  private final int batchSize;
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, byte[]> charts = new ConcurrentHashMap<>();

  public GenerationActivitiesImpl(
      GenerationMapper generations,
      ChartMapper chartVersions,
      BiFunction<UUID, UUID, ProjectSnapshot> snapshots,
      Renderer renderer,
      ProjectRepos repos,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock,
      int batchSize) {
    this.generations = generations;
    this.chartVersions = chartVersions;
    this.snapshots = snapshots;
    this.renderer = renderer;
    this.repos = repos;
    this.audit = audit;
    this.tx = tx;
    this.clock = clock;
    if (batchSize < 1 || batchSize > 1000) {
      throw new IllegalArgumentException(
          "the delivery batch size must be between 1 and 1000, not " + batchSize);
    }
    this.batchSize = batchSize;
  }

  // ---- plan --------------------------------------------------------------------------------

  /** What the plan transaction decided: a plan, or why the configuration cannot be planned. */
  private record Planned(GenerationPlan plan, String failure) {}

  @Override
  public GenerationPlan plan(GenerationRequest request) {
    UUID org = UUID.fromString(request.orgId());
    UUID project = UUID.fromString(request.projectId());
    Planned planned =
        tx.execute(
            t -> {
              Optional<GenerationMapper.ProjectRevisions> p = generations.lockProject(org, project);
              if (p.isEmpty()) {
                return new Planned(new GenerationPlan(null, 0, 0), null); // Deleted meanwhile.
              }
              Optional<GenerationRow> existing =
                  generations.findByRevision(org, project, request.revision());
              if (existing.isPresent()) {
                GenerationRow g = existing.get();
                return GenerationResult.FAILED.equals(g.status())
                    ? new Planned(null, g.detail())
                    : new Planned(
                        new GenerationPlan(g.id().toString(), g.units(), g.batches()), null);
              }
              if (p.get().configRevision() > request.revision()
                  || p.get().generatedRevision() >= request.revision()) {
                // A newer revision exists: its own generation delivers it.
                return new Planned(new GenerationPlan(null, 0, 0), null);
              }
              String configCommit =
                  repos.head(org, project, ProjectRepos.MAIN).map(ObjectId::name).orElse("");
              Instant now = clock.instant();
              UUID id = UUID.randomUUID();
              List<Unit> units;
              try {
                units = DeliveryPlanner.plan(snapshots.apply(org, project));
              } catch (PlanException e) {
                generations.insert(
                    new GenerationRow(
                        id,
                        org,
                        project,
                        request.revision(),
                        configCommit,
                        GenerationResult.FAILED,
                        0,
                        0,
                        0,
                        null,
                        request.trigger(),
                        request.actor(),
                        e.getMessage(),
                        now,
                        now,
                        0,
                        0));
                auditFailed(org, project, id, request.revision(), e.getMessage());
                return new Planned(null, e.getMessage());
              }
              List<GenerationUnitRow> rows = reuseOrBatch(org, project, units);
              int reused =
                  (int) rows.stream().filter(r -> r.batch() == GenerationUnitRow.REUSED).count();
              int rendered = units.size() - reused;
              int batches = (rendered + batchSize - 1) / batchSize;
              generations.insert(
                  new GenerationRow(
                      id,
                      org,
                      project,
                      request.revision(),
                      configCommit,
                      "rendering",
                      units.size(),
                      batches,
                      0,
                      null,
                      request.trigger(),
                      request.actor(),
                      "",
                      now,
                      null,
                      rendered,
                      reused));
              for (int from = 0; from < rows.size(); from += GenerationMapper.UNITS_PER_INSERT) {
                generations.insertUnits(
                    org,
                    id,
                    rows.subList(
                        from, Math.min(rows.size(), from + GenerationMapper.UNITS_PER_INSERT)),
                    renderer.outputVersion());
              }
              if (reused > 0) {
                log.info(
                    "generation {} of project {}: {} of {} units unchanged since an earlier"
                        + " generation, not rendered again",
                    id,
                    project,
                    reused,
                    units.size());
              }
              return new Planned(new GenerationPlan(id.toString(), units.size(), batches), null);
            });
    if (planned.failure() != null) {
      throw ApplicationFailure.newNonRetryableFailure(
          planned.failure(), DeliveryGenerationWorkflowImpl.PLAN_FAILED);
    }
    return planned.plan();
  }

  /**
   * The rows of a new generation's units. A unit whose fingerprint equals that of the same unit
   * (same path) in a generation still on record, whose tree is recorded and still in the
   * repository, takes that tree and batch {@link GenerationUnitRow#REUSED}; the others are batched
   * for rendering, in order.
   */
  private List<GenerationUnitRow> reuseOrBatch(UUID org, UUID project, List<Unit> units) {
    Map<String, ObjectId> earlier = new HashMap<>();
    for (GenerationMapper.RenderedUnit r : generations.renderedUnits(org, project)) {
      earlier.putIfAbsent(
          UnitReuse.key(r.path(), r.fingerprint()), ObjectId.fromString(r.treeId()));
    }
    UnitReuse reuse = UnitReuse.decide(repos, org, project, renderer, units, earlier);
    List<GenerationUnitRow> rows = new ArrayList<>(units.size());
    int toRender = 0;
    for (int i = 0; i < units.size(); i++) {
      Unit u = units.get(i);
      boolean reused = reuse.reused(i);
      rows.add(
          new GenerationUnitRow(
              i,
              reused ? GenerationUnitRow.REUSED : toRender++ / batchSize,
              u.path(),
              toJson(u),
              reused ? reuse.trees().get(i).name() : null,
              reuse.fingerprints().get(i)));
    }
    return rows;
  }

  // ---- render ------------------------------------------------------------------------------

  @Override
  public int render(String orgId, String generationId, int batch) {
    UUID org = UUID.fromString(orgId);
    UUID id = UUID.fromString(generationId);
    GenerationRow g =
        generations
            .find(org, id)
            .orElseThrow(() -> new IllegalStateException("generation " + id + " is gone"));
    List<GenerationUnitRow> todo = new ArrayList<>();
    List<SortedMap<String, byte[]>> files = new ArrayList<>();
    for (GenerationUnitRow row : generations.batch(org, id, batch)) {
      if (row.treeId() != null) {
        continue; // An earlier attempt of this batch got here.
      }
      Unit unit = fromJson(row.input());
      try {
        files.add(renderer.render(unit, digest -> chart(org, digest)));
      } catch (RenderException e) {
        throw ApplicationFailure.newNonRetryableFailure(
            e.getMessage(), DeliveryGenerationWorkflowImpl.RENDER_FAILED);
      }
      todo.add(row);
    }
    if (todo.isEmpty()) {
      return 0;
    }
    // The batch's blobs and trees as one pack file, then each unit's tree recorded.
    List<ObjectId> trees = repos.writeTrees(org, g.projectId(), files);
    for (int i = 0; i < todo.size(); i++) {
      generations.setTree(org, id, todo.get(i).idx(), trees.get(i).name());
    }
    return todo.size();
  }

  private byte[] chart(UUID org, String digest) {
    String key = org + "/" + digest;
    byte[] cached = charts.get(key);
    if (cached != null) {
      return cached;
    }
    byte[] archive =
        chartVersions
            .archiveByDigest(org, digest)
            .map(ChartArchiveRow::archive)
            .orElseThrow(
                () ->
                    new RenderException(
                        "the chart archive with digest " + digest + " is not in the registry"));
    if (charts.size() >= CHART_CACHE) {
      charts.clear();
    }
    charts.put(key, archive);
    return archive;
  }

  // ---- commit ------------------------------------------------------------------------------

  /** What the commit transaction did to Git, so a failed database half can be undone. */
  private record Written(GenerationResult result, ObjectId commit, ObjectId previous) {}

  @Override
  public GenerationResult commit(String orgId, String generationId) {
    UUID org = UUID.fromString(orgId);
    UUID id = UUID.fromString(generationId);
    Written[] written = {null};
    UUID[] project = {null};
    try {
      GenerationResult result =
          tx.execute(
              t -> {
                GenerationRow g =
                    generations
                        .find(org, id)
                        .orElseThrow(
                            () -> new IllegalStateException("generation " + id + " is gone"));
                project[0] = g.projectId();
                if (isFinal(g.status())) {
                  return resultOf(g);
                }
                GenerationMapper.ProjectRevisions p =
                    generations
                        .lockProject(org, g.projectId())
                        .orElseThrow(() -> new IllegalStateException("project is gone"));
                Instant now = clock.instant();
                if (p.generatedRevision() >= g.revision()) {
                  String detail =
                      "revision "
                          + g.revision()
                          + " was superseded: revision "
                          + p.generatedRevision()
                          + " is already delivered";
                  generations.finish(org, id, GenerationResult.SUPERSEDED, 0, null, detail, now);
                  return new GenerationResult(
                      generationId,
                      GenerationResult.SUPERSEDED,
                      null,
                      g.units(),
                      0,
                      detail,
                      reused(g));
                }
                SortedMap<String, ObjectId> unitTrees = new TreeMap<>();
                for (GenerationUnitRow u : generations.trees(org, id)) {
                  if (u.treeId() == null) {
                    throw new IllegalStateException(
                        "unit " + u.path() + " has not been rendered yet");
                  }
                  unitTrees.put(u.path(), ObjectId.fromString(u.treeId()));
                }
                // The edits are relative to main's rendered/ as read here; only generation commits
                // write it, under the project's row lock held now, so a configuration commit
                // landing meanwhile (the commit below retries on the new tip) cannot change it.
                DeliveryTree.Assembly assembly =
                    DeliveryTree.assemble(repos, org, g.projectId(), unitTrees);
                List<TreeEdit> edits = assembly.edits();
                Optional<ObjectId> head = assembly.head();
                DeliveryTree.Changes changes = assembly.changes();

                if (changes.isEmpty()) {
                  String detail =
                      "no change: " + g.units() + " units render exactly what main holds";
                  String at = head.map(ObjectId::name).orElse(null);
                  generations.finish(org, id, GenerationResult.UNCHANGED, 0, at, detail, now);
                  generations.markGenerated(org, g.projectId(), g.revision());
                  generations.pruneUnits(org, g.projectId(), g.revision());
                  return new GenerationResult(
                      generationId,
                      GenerationResult.UNCHANGED,
                      at,
                      g.units(),
                      0,
                      detail,
                      reused(g));
                }
                CommitResult c =
                    repos.commit(
                        org,
                        g.projectId(),
                        ProjectRepos.MAIN,
                        null,
                        edits,
                        GENERATOR,
                        message(p.name(), g, changes));
                written[0] = new Written(null, c.commit(), c.previous());
                String detail = changes.summary(g.units());
                generations.finish(
                    org,
                    id,
                    GenerationResult.COMMITTED,
                    c.changedPaths(),
                    c.commitName(),
                    detail,
                    now);
                generations.markGenerated(org, g.projectId(), g.revision());
                generations.pruneUnits(org, g.projectId(), g.revision());
                for (String[] envTenant : changes.tenantEnvironments()) {
                  generations.recordGenerated(
                      org, g.projectId(), envTenant[0], envTenant[1], c.commitName(), now);
                }
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("project", p.name());
                d.put("revision", g.revision());
                d.put("commit", c.commitName());
                d.put("units", g.units());
                d.put("changedUnits", changes.units().size());
                d.put("changedFiles", c.changedPaths());
                audit.record(
                    org,
                    Actor.system("delivery-generator"),
                    "delivery.generated",
                    "project",
                    g.projectId().toString(),
                    d);
                return new GenerationResult(
                    generationId,
                    GenerationResult.COMMITTED,
                    c.commitName(),
                    g.units(),
                    c.changedPaths(),
                    detail,
                    reused(g));
              });
      // The render batches wrote a pack each; repack when they add up (gc --auto).
      repos.maintain(org, project[0]);
      return result;
    } catch (RuntimeException e) {
      Written w = written[0];
      if (w != null) {
        // Git moved but the database did not: put main back so they agree; a retry commits again.
        // The project is the one read before the commit: the database that just failed (e.g.
        // PostgreSQL restarting) cannot be asked again, and without the take-back the retry would
        // find main already holding the tree and record the generation as "unchanged".
        repos.undo(org, project[0], ProjectRepos.MAIN, w.commit(), w.previous());
      }
      throw e;
    }
  }

  @Override
  public GenerationResult fail(String orgId, String generationId, String reason) {
    UUID org = UUID.fromString(orgId);
    UUID id = UUID.fromString(generationId);
    return tx.execute(
        t -> {
          GenerationRow g =
              generations
                  .find(org, id)
                  .orElseThrow(() -> new IllegalStateException("generation " + id + " is gone"));
          if (!isFinal(g.status())) {
            generations.finish(org, id, GenerationResult.FAILED, 0, null, reason, clock.instant());
            auditFailed(org, g.projectId(), id, g.revision(), reason);
          }
          return new GenerationResult(
              generationId, GenerationResult.FAILED, null, g.units(), 0, reason, reused(g));
        });
  }

  private void auditFailed(UUID org, UUID project, UUID generation, long revision, String reason) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("generation", generation.toString());
    d.put("revision", revision);
    d.put("reason", reason);
    audit.record(
        org,
        Actor.system("delivery-generator"),
        "delivery.failed",
        "project",
        project.toString(),
        d);
  }

  static boolean isFinal(String status) {
    return Set.of(
            GenerationResult.COMMITTED,
            GenerationResult.UNCHANGED,
            GenerationResult.SUPERSEDED,
            GenerationResult.FAILED)
        .contains(status);
  }

  private static GenerationResult resultOf(GenerationRow g) {
    return new GenerationResult(
        g.id().toString(),
        g.status(),
        g.commit(),
        g.units(),
        g.changedPaths(),
        g.detail(),
        reused(g));
  }

  /** How many of the generation's units reused an earlier tree (0 when not recorded). */
  private static int reused(GenerationRow g) {
    return g.reusedUnits() == null ? 0 : g.reusedUnits();
  }

  private String message(String project, GenerationRow g, DeliveryTree.Changes changes) {
    String config =
        g.configCommit().isEmpty()
            ? "none"
            : g.configCommit().substring(0, Math.min(12, g.configCommit().length()));
    StringBuilder body =
        new StringBuilder("Rendered revision ")
            .append(g.revision())
            .append(" (config ")
            .append(config)
            .append("), triggered by ")
            .append(g.trigger())
            .append(" from ")
            .append(g.actor())
            .append(".\n\n");
    int listed = 0;
    for (Map.Entry<String, String> e : changes.units().entrySet()) {
      if (listed++ == LISTED_UNITS) {
        body.append("... and ").append(changes.units().size() - LISTED_UNITS).append(" more\n");
        break;
      }
      body.append(e.getValue()).append(": ").append(e.getKey()).append('\n');
    }
    Map<String, String> scope = new LinkedHashMap<>();
    scope.put("project", project);
    scope.put("environments", String.join(",", changes.environments()));
    scope.put("tenants", String.join(",", changes.tenants()));
    scope.put("services", String.join(",", changes.services()));
    return new CommitMessage(
            "Deliver revision "
                + g.revision()
                + " of "
                + project
                + ": "
                + changes.summary(g.units()),
            body.toString(),
            "delivery generator, for " + g.actor() + " (" + g.trigger() + ")",
            scope,
            "delivery.generated")
        .format();
  }

  private String toJson(Unit u) {
    try {
      return json.writeValueAsString(u);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize unit " + u.path(), e);
    }
  }

  private Unit fromJson(String s) {
    try {
      return json.readValue(s, Unit.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot read a stored unit", e);
    }
  }
}

package dev.gitopshq.activities.release;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.EnvironmentMapper;
import dev.gitopshq.activities.delivery.EnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.delivery.ProjectTenantRow;
import dev.gitopshq.activities.git.CommitMessage;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.governance.Governance;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.policy.FreezeService;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.FreezeCheck;
import dev.gitopshq.workflows.governance.Notification;
import dev.gitopshq.workflows.release.DeploymentRequest;
import dev.gitopshq.workflows.release.DeploymentStatus;
import dev.gitopshq.workflows.release.ReleaseActivities;
import dev.gitopshq.workflows.release.ReleaseFailures;
import io.temporal.failure.ApplicationFailure;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.eclipse.jgit.lib.ObjectId;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The deployment workflows' store, policy and repository activities: timelines in PostgreSQL,
 * decisions from OPA ({@code gitopshq.freeze}, {@code gitopshq.release}), commits on the deploy
 * branches. Only ids and commit names travel through workflow history; the manifests stay in the
 * repository.
 */
public class ReleaseActivitiesImpl implements ReleaseActivities {
  /** The policy every deployment decision comes from. */
  public static final String RELEASE_POLICY = "release";

  /** The failure type of a deployment that can never be written (nothing rendered). */
  public static final String NOT_DEPLOYABLE = "NotDeployable";

  /** How many configuration commits a deploy commit's body lists at most. */
  static final int MAX_LISTED_CHANGES = 50;

  private final ReleaseMapper releases;
  private final DeploymentMapper deployments;
  private final DeliveryMapper deliveries;
  private final ProjectMapper projects;
  private final EnvironmentMapper environments;
  private final ProjectTenantMapper projectTenants;
  private final PolicyService policies;
  private final FreezeService freeze;
  private final DeployWriter writer;
  private final DeploymentChanges changeReader;
  private final ConfigHistory history;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;
  private final Governance governance;
  private final ObjectMapper json = new ObjectMapper();

  /** Told when a deployment committed an environment (the drift check after a deployment). */
  @FunctionalInterface
  public interface DeployedHook {
    void deployed(UUID orgId, UUID projectId, UUID environmentId, String deploymentId);
  }

  private final List<DeployedHook> deployedHooks = new CopyOnWriteArrayList<>();

  /** Adds what runs, inside the commit's transaction, after each environment is committed. */
  public ReleaseActivitiesImpl onDeployed(DeployedHook hook) {
    deployedHooks.add(hook);
    return this;
  }

  public ReleaseActivitiesImpl(
      ReleaseMapper releases,
      DeploymentMapper deployments,
      DeliveryMapper deliveries,
      ProjectMapper projects,
      EnvironmentMapper environments,
      ProjectTenantMapper projectTenants,
      PolicyService policies,
      FreezeService freeze,
      DeployWriter writer,
      ConfigHistory history,
      WebhookNotifier webhook,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock) {
    this.releases = releases;
    this.deployments = deployments;
    this.deliveries = deliveries;
    this.projects = projects;
    this.environments = environments;
    this.projectTenants = projectTenants;
    this.policies = policies;
    this.freeze = freeze;
    this.writer = writer;
    this.changeReader = new DeploymentChanges(writer.repos());
    this.history = history;
    this.audit = audit;
    this.tx = tx;
    this.clock = clock;
    this.governance = new Governance(policies, webhook, audit, tx, clock);
  }

  // ---- timeline ---------------------------------------------------------------------------

  @Override
  public void transition(
      String orgId,
      String deploymentId,
      int seq,
      DeploymentStatus status,
      String actor,
      String detail) {
    governance.transition(
        deployments,
        "deployment",
        orgId,
        deploymentId,
        seq,
        status.name(),
        status.isFinal(),
        actor,
        detail);
  }

  // ---- source ---------------------------------------------------------------------------

  @Override
  public String resolveSource(String orgId, String releaseId) {
    UUID org = UUID.fromString(orgId);
    ReleaseRow release = release(org, UUID.fromString(releaseId));
    if (release.sourceCommit() != null) {
      return release.sourceCommit();
    }
    long revision = release.configRevision();
    long generated = releases.generatedRevision(org, release.projectId()).orElse(0L);
    List<GenerationStateRow> gens = releases.generationsFrom(org, release.projectId(), revision);
    // The oldest successful generation at or after the revision: the revision's own delivery, or
    // (when a newer configuration superseded it before it was generated) the first that includes
    // it. A newer one would ship changes made after the release was created.
    Optional<GenerationStateRow> delivered =
        gens.stream().filter(GenerationStateRow::succeeded).findFirst();
    if (generated >= revision && delivered.isPresent()) {
      String commit = delivered.get().commit();
      tx.executeWithoutResult(
          t -> {
            if (releases.setSourceCommit(org, release.id(), commit) == 1) {
              Map<String, Object> d = new LinkedHashMap<>();
              d.put("number", release.number());
              d.put("sourceCommit", commit);
              d.put("generatedRevision", delivered.get().revision());
              audit.record(
                  org,
                  Actor.system("release-workflow"),
                  "release.source_resolved",
                  "release",
                  release.id().toString(),
                  d);
            }
          });
      return release(org, release.id()).sourceCommit();
    }
    Optional<GenerationStateRow> failed =
        gens.stream()
            .filter(g -> g.revision() == revision && "failed".equals(g.status()))
            .findFirst();
    boolean newerUnderWay =
        gens.stream().anyMatch(g -> g.revision() > revision && !"failed".equals(g.status()));
    if (failed.isPresent() && delivered.isEmpty() && !newerUnderWay) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the delivery generation of revision " + revision + " failed: " + failed.get().detail(),
          ReleaseFailures.NO_DELIVERY);
    }
    // Retried by the workflow until the generation has finished.
    throw new IllegalStateException(
        "revision "
            + revision
            + " of the project is still being generated (generated revision "
            + generated
            + ")");
  }

  // ---- decisions --------------------------------------------------------------------------

  @Override
  public FreezeCheck checkFreeze(DeploymentRequest r) {
    UUID org = UUID.fromString(r.orgId());
    ProjectRow project = project(org, UUID.fromString(r.projectId()));
    FreezeService.Request request =
        new FreezeService.Request(
            r.action(),
            project.id().toString(),
            project.name(),
            r.environments(),
            r.breakGlass(),
            r.breakGlass() ? r.breakGlassJustification() : "",
            clock.instant());
    UUID deploymentId = UUID.fromString(r.deploymentId());
    // check writes the current freeze windows to OPA first, so a restarted OPA cannot thaw
    // anything; the decision is recorded with its input for what-ifs of the freeze policy.
    return freeze.decide(
        org,
        "deployment",
        r.deploymentId(),
        () -> {
          FreezeCheck check = freeze.check(org, request);
          freeze.record(org, deploymentId, request, check);
          return check;
        },
        detail -> deployments.updateDetail(org, deploymentId, detail, clock.instant()));
  }

  @Override
  public Decision decide(DeploymentRequest r) {
    ObjectNode in = decisionInput(r);
    // The summary is stored for the deployment's readers; the whole input stays on this side of
    // Temporal (only the decision goes back to the workflow).
    deployments.recordChanges(
        UUID.fromString(r.orgId()),
        UUID.fromString(r.deploymentId()),
        DeploymentChanges.summary((ObjectNode) in.get("changes")).toString(),
        clock.instant());
    return governance.decide(
        deployments, "deployment", r.orgId(), r.deploymentId(), RELEASE_POLICY, in);
  }

  /** The {@code gitopshq.release} input document (docs/policies.md describes it). */
  ObjectNode decisionInput(DeploymentRequest r) {
    UUID org = UUID.fromString(r.orgId());
    ReleaseRow release = release(org, UUID.fromString(r.releaseId()));
    ProjectRow project = project(org, release.projectId());
    ObjectNode in = json.createObjectNode();
    in.put("action", r.action());
    ObjectNode rel = in.putObject("release");
    rel.put("id", release.id().toString());
    rel.put("number", release.number());
    rel.put("kind", release.kind());
    rel.put("description", release.description());
    rel.put("changes", changeCount(org, release));
    ObjectNode p = in.putObject("project");
    p.put("id", project.id().toString());
    p.put("name", project.name());
    in.set("environments", environmentsInput(org, r.environments()));
    in.set("changes", changes(org, release, r.environments()));
    ObjectNode q = in.putObject("requester");
    q.put("id", r.requester().id());
    q.put("type", r.requester().type());
    q.put("name", r.requester().name());
    q.put("role", r.requester().role() == null ? "" : r.requester().role());
    q.set("teams", json.valueToTree(r.requester().teams()));
    q.set("behind", json.valueToTree(r.requester().behind()));
    breakGlass(in, r);
    in.put("time", clock.instant().toString());
    return in;
  }

  /** How many configuration changes a standard release collects; 0 for a rollback. */
  long changeCount(UUID org, ReleaseRow release) {
    if (release.isRollback()) {
      return 0;
    }
    long previous =
        releases
            .previousStandard(org, release.projectId(), release.number())
            .map(ReleaseRow::configRevision)
            .orElse(0L);
    return Math.max(0, release.configRevision() - previous);
  }

  /**
   * What the deployment would write on each environment's deploy branch, compared with what the
   * branch holds now. An environment the release has nothing rendered for is left out: writing it
   * fails.
   */
  private ObjectNode changes(UUID org, ReleaseRow release, List<String> envs) {
    List<DeployWriter.Planned> plans = new ArrayList<>();
    if (release.isRollback()) {
      ReleaseRow original = release(org, release.rollbackOf());
      RollbackScope scope = RollbackScope.fromJson(release.scope());
      for (String env : envs) {
        if (original.sourceCommit() != null && scope.touches(env)) {
          writer
              .planRollback(
                  org,
                  release.projectId(),
                  env,
                  ObjectId.fromString(original.sourceCommit()),
                  scope)
              .ifPresent(plans::add);
        }
      }
    } else {
      if (release.sourceCommit() == null) {
        // The workflow resolves the source first; a decision without it would see no change.
        throw new IllegalStateException(
            "release #" + release.number() + " has no source commit yet");
      }
      for (String env : envs) {
        writer
            .planDeploy(org, release.projectId(), env, ObjectId.fromString(release.sourceCommit()))
            .ifPresent(plans::add);
      }
    }
    return changeReader.compute(org, release.projectId(), plans);
  }

  private ArrayNode environmentsInput(UUID org, List<String> names) {
    List<EnvironmentRow> order = environments.list(org);
    String last = order.isEmpty() ? null : order.getLast().name();
    Map<String, EnvironmentRow> byName =
        order.stream().collect(Collectors.toMap(EnvironmentRow::name, Function.identity()));
    ArrayNode a = json.createArrayNode();
    for (String name : names) {
      ObjectNode e = a.addObject();
      e.put("name", name);
      EnvironmentRow row = byName.get(name);
      if (row != null) {
        e.put("position", row.position());
      }
      e.put("last", name.equals(last));
    }
    return a;
  }

  private static void breakGlass(ObjectNode in, DeploymentRequest r) {
    ObjectNode bg = in.putObject("break_glass");
    bg.put("requested", r.breakGlass());
    bg.put(
        "justification",
        r.breakGlass() && r.breakGlassJustification() != null ? r.breakGlassJustification() : "");
  }

  // ---- the commits ------------------------------------------------------------------------

  @Override
  public Map<String, String> apply(String orgId, String deploymentId) {
    UUID org = UUID.fromString(orgId);
    DeploymentRow d =
        deployments
            .findById(org, UUID.fromString(deploymentId))
            .orElseThrow(
                () -> new IllegalStateException("deployment " + deploymentId + " is gone"));
    ReleaseRow release = release(org, d.releaseId());
    ProjectRow project = project(org, d.projectId());
    String type = deployments.isMember(org, d.requestedBy()) ? "member" : "service_account";
    Ident author = Ident.of(type, d.requestedBy(), d.requesterName());
    String authorLabel =
        author.name() + " (" + type.replace('_', ' ') + " " + d.requestedBy() + ")";
    Map<String, UUID> tenantIds =
        projectTenants.list(org, project.id()).stream()
            .collect(Collectors.toMap(ProjectTenantRow::tenant, ProjectTenantRow::tenantId));

    Map<String, String> commits = new TreeMap<>();
    for (String env : d.environments()) {
      DeployWriter.Written w;
      UUID deliveredRelease = release.id();
      try {
        if (release.isRollback()) {
          w = rollback(org, project, release, env, author, authorLabel);
        } else {
          w = deploy(org, project, release, d.action(), env, author, authorLabel);
        }
      } catch (NoRenderedManifestsException e) {
        throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), NOT_DEPLOYABLE);
      } catch (UncheckedIOException e) {
        Optional<String> missing = ProjectRepos.missingObject(e.getCause());
        if (missing.isPresent()) {
          // The repository lacks a commit the database names (restored from an older backup):
          // retrying cannot help.
          throw ApplicationFailure.newNonRetryableFailure(
              "the repository of "
                  + project.name()
                  + " has no object "
                  + missing.get()
                  + " that release #"
                  + release.number()
                  + " needs; restore the repositories and the"
                  + " database from the same backup",
              NOT_DEPLOYABLE);
        }
        throw e;
      }
      commits.put(env, w.commit());
      UUID envId = environments.findByName(org, env).map(EnvironmentRow::id).orElse(null);
      tx.executeWithoutResult(
          t -> {
            Instant now = clock.instant();
            if (envId != null) {
              for (String tenant : w.tenants()) {
                UUID tenantId = tenantIds.get(tenant);
                if (tenantId != null) {
                  deliveries.recordDeployed(
                      org, project.id(), envId, tenantId, w.commit(), deliveredRelease, now);
                }
              }
            }
            deployments.recordCommits(org, d.id(), commits, now);
            if (envId != null) {
              deployedHooks.forEach(h -> h.deployed(org, project.id(), envId, deploymentId));
            }
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("release", release.number());
            a.put("environment", env);
            a.put("branch", "deploy/" + env);
            a.put("commit", w.commit());
            a.put("changed", w.changed());
            a.put("changedPaths", w.changedPaths());
            a.put("tenants", List.copyOf(w.tenants()));
            audit.record(
                org,
                new Actor("workflow", deploymentId, d.requesterName()),
                "deployment.committed",
                "deployment",
                deploymentId,
                a);
          });
    }
    return commits;
  }

  private DeployWriter.Written deploy(
      UUID org,
      ProjectRow project,
      ReleaseRow release,
      String action,
      String env,
      Ident author,
      String authorLabel) {
    if (release.sourceCommit() == null) {
      throw new IllegalStateException("release #" + release.number() + " has no source commit yet");
    }
    boolean promote = DeploymentRequest.PROMOTE.equals(action);
    String subject =
        (promote ? "Promote" : "Deploy")
            + " release #"
            + release.number()
            + " of "
            + project.name()
            + " to "
            + env;
    StringBuilder body = new StringBuilder();
    if (!release.description().isBlank()) {
      body.append(release.description().strip()).append("\n\n");
    }
    List<ConfigHistory.Change> changes = collectedChanges(org, release);
    if (!changes.isEmpty()) {
      body.append("Configuration changes:\n");
      for (ConfigHistory.Change c : changes) {
        body.append("- ")
            .append(c.commit(), 0, 12)
            .append(' ')
            .append(c.description())
            .append('\n');
      }
    }
    String message =
        new CommitMessage(
                subject,
                body.toString(),
                authorLabel,
                scope(project.name(), env),
                promote ? "release.promoted" : "release.deployed")
            .format();
    return writer.deploy(
        org,
        project.id(),
        env,
        ObjectId.fromString(release.sourceCommit()),
        author,
        message,
        "release #" + release.number());
  }

  private DeployWriter.Written rollback(
      UUID org,
      ProjectRow project,
      ReleaseRow release,
      String env,
      Ident author,
      String authorLabel) {
    ReleaseRow original = release(org, release.rollbackOf());
    if (original.sourceCommit() == null) {
      throw new NoRenderedManifestsException(
          "release #"
              + original.number()
              + " was never resolved to a delivery and cannot be restored");
    }
    RollbackScope scope = RollbackScope.fromJson(release.scope());
    String label = scope.label(env);
    String subject =
        "Roll back "
            + project.name()
            + " "
            + env
            + " to release #"
            + original.number()
            + (label.isEmpty() ? "" : " " + label);
    StringBuilder body = new StringBuilder();
    if (!release.description().isBlank()) {
      body.append(release.description().strip()).append("\n\n");
    }
    body.append("Release #")
        .append(release.number())
        .append(" restores the files of release #")
        .append(original.number())
        .append(" (")
        .append(original.sourceCommit(), 0, 12)
        .append(")")
        .append(" for scope ")
        .append(scope.toJson())
        .append("; every other file is unchanged.");
    String message =
        new CommitMessage(
                subject,
                body.toString(),
                authorLabel,
                scope(project.name(), env),
                "release.rolled_back")
            .format();
    return writer.rollback(
        org,
        project.id(),
        env,
        ObjectId.fromString(original.sourceCommit()),
        scope,
        author,
        message,
        "release #" + original.number());
  }

  /**
   * The configuration commits a standard release collects, read from the generation that delivered
   * it: the newest {@code changes} configuration commits at its revision.
   */
  List<ConfigHistory.Change> collectedChanges(UUID org, ReleaseRow release) {
    long count = Math.min(changeCount(org, release), MAX_LISTED_CHANGES);
    if (count == 0) {
      return List.of();
    }
    Optional<GenerationStateRow> g =
        releases.generationsFrom(org, release.projectId(), release.configRevision()).stream()
            .filter(r -> release.sourceCommit().equals(r.commit()) && r.configCommit() != null)
            .findFirst();
    if (g.isEmpty()) {
      return List.of();
    }
    try {
      return history.changes(
          org,
          release.projectId(),
          ObjectId.fromString(g.get().configCommit()),
          g.get().revision() - release.configRevision(),
          count);
    } catch (RuntimeException e) {
      // The list is for readers of the commit; a configuration commit that cannot be read (an
      // unexpected config_commit value) must not stop the deployment.
      return List.of();
    }
  }

  private static Map<String, String> scope(String project, String env) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("project", project);
    s.put("environment", env);
    return s;
  }

  // ---- notifications ----------------------------------------------------------------------

  @Override
  public void notify(Notification n) {
    governance.notify(n);
  }

  // ---- lookups ----------------------------------------------------------------------------

  private ReleaseRow release(UUID org, UUID id) {
    return releases
        .findById(org, id)
        .orElseThrow(() -> new IllegalStateException("release " + id + " is gone"));
  }

  private ProjectRow project(UUID org, UUID id) {
    return projects
        .findById(org, id)
        .orElseThrow(() -> new IllegalStateException("project " + id + " is gone"));
  }
}

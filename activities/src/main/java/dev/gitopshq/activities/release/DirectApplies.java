package dev.gitopshq.activities.release;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Timestamp;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.agent.v1.AppliedObject;
import dev.gitopshq.agent.v1.ApplyFile;
import dev.gitopshq.agent.v1.ApplyRelease;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.ObjectResult;
import dev.gitopshq.agent.v1.TenantFence;
import dev.gitopshq.workflows.release.DirectApplyActivities;
import dev.gitopshq.workflows.release.DirectOutcome;
import dev.gitopshq.workflows.release.DirectTarget;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Direct deploy on the hub: which clusters deliver directly, parking each apply for its agent (the
 * activity completes when the agent reports, on whichever replica), building the {@link
 * ApplyRelease} from the repository when a stream carries it, storing the agent's {@link
 * ApplyResult} and what it placed, and writing the per-object lines into the deployment's timeline.
 * Only ids and commit names travel through workflow history.
 */
public class DirectApplies implements DirectApplyActivities {
  /** The most files one apply carries. */
  public static final int MAX_FILES = 2_000;

  /** The most bytes of files one apply carries (the agent's gRPC messages stay under 4 MiB). */
  public static final int MAX_BYTES = 3 * 1024 * 1024;

  /** The most per-object lines one apply writes into the timeline. */
  static final int MAX_LINES = 500;

  private static final TypeReference<List<Map<String, String>>> LINES = new TypeReference<>() {};

  private final DirectApplyMapper applies;
  private final AgentJobMapper jobs;
  private final DeploymentMapper deployments;
  private final ProjectRepos repos;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;
  private final Duration dispatchTimeout;
  private final Duration healthTimeout;
  private final ObjectMapper json = new ObjectMapper();

  /**
   * @param dispatchTimeout how long an agent has to take an apply before it fails unapplied
   * @param healthTimeout how long the agent waits for rollout health
   */
  public DirectApplies(
      DirectApplyMapper applies,
      AgentJobMapper jobs,
      DeploymentMapper deployments,
      ProjectRepos repos,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock,
      Duration dispatchTimeout,
      Duration healthTimeout) {
    this.applies = applies;
    this.jobs = jobs;
    this.deployments = deployments;
    this.repos = repos;
    this.audit = audit;
    this.tx = tx;
    this.clock = clock;
    this.dispatchTimeout = dispatchTimeout;
    this.healthTimeout = healthTimeout;
  }

  // ---- activities -------------------------------------------------------------------------

  @Override
  public List<DirectTarget> targets(String orgId, String deploymentId) {
    UUID org = UUID.fromString(orgId);
    DeploymentRow d = deployment(org, deploymentId);
    List<DirectTargetRow> rows = applies.targets(org, d.projectId(), d.environments());
    String missing = missingCapability(rows);
    if (missing != null) {
      throw ApplicationFailure.newNonRetryableFailure(missing, UNAVAILABLE);
    }
    return rows.stream()
        .map(t -> new DirectTarget(t.environment(), t.clusterId().toString(), t.cluster()))
        .toList();
  }

  /**
   * Why a deployment to these direct-mode clusters cannot run — some agent has not announced
   * direct.deploy — or null. The REST API refuses such a deployment with it (409) and the workflow
   * fails with it, before anything is written.
   */
  public static String missingCapability(List<DirectTargetRow> targets) {
    List<String> missing = new ArrayList<>();
    for (DirectTargetRow t : targets) {
      if (t.capabilities() == null || !t.capabilities().contains(Capabilities.DIRECT_DEPLOY)) {
        missing.add(t.cluster() + " (" + t.environment() + ")");
      }
    }
    return missing.isEmpty()
        ? null
        : "direct delivery needs the direct.deploy capability, which the agent of "
            + String.join(", ", missing)
            + " has not announced (agent chart: capabilities.directDeploy=true with"
            + " rbac.profile=readwrite); nothing was deployed";
  }

  @Override
  public DirectOutcome apply(
      String orgId, String deploymentId, String applyId, DirectTarget target, String commit) {
    ActivityExecutionContext ctx = Activity.getExecutionContext();
    UUID org = UUID.fromString(orgId);
    DeploymentRow d = deployment(org, deploymentId);
    UUID envId =
        applies.targets(org, d.projectId(), List.of(target.environment())).stream()
            .filter(t -> t.clusterId().toString().equals(target.clusterId()))
            .map(DirectTargetRow::environmentId)
            .findFirst()
            .orElseThrow(
                () ->
                    ApplicationFailure.newNonRetryableFailure(
                        "cluster "
                            + target.cluster()
                            + " no longer delivers "
                            + target.environment()
                            + " directly; nothing was applied",
                        UNAVAILABLE));
    Instant now = clock.instant();
    UUID cluster = UUID.fromString(target.clusterId());
    Instant deadline = now.plus(dispatchTimeout);
    tx.executeWithoutResult(
        t -> {
          applies.park(
              applyId,
              org,
              d.id(),
              d.projectId(),
              envId,
              target.environment(),
              cluster,
              commit,
              deadline,
              (int) healthTimeout.toSeconds(),
              now);
          jobs.park(
              UUID.randomUUID(),
              org,
              cluster,
              AgentJob.KIND_DIRECT_APPLY,
              applyId,
              ctx.getTaskToken(),
              null,
              null,
              deadline,
              now);
        });
    ctx.doNotCompleteOnReturn();
    return null;
  }

  @Override
  public int record(String orgId, String deploymentId, String applyId, int firstSeq) {
    UUID org = UUID.fromString(orgId);
    UUID dep = UUID.fromString(deploymentId);
    DirectApplyRow row = applies.find(org, applyId).orElse(null);
    if (row == null || row.finishedAt() == null) {
      return 0;
    }
    List<Map<String, String>> results = results(row.results());
    List<String> lines = new ArrayList<>();
    int applied = 0;
    int pruned = 0;
    int failed = 0;
    for (Map<String, String> r : results) {
      switch (r.getOrDefault("action", "")) {
        case "applied" -> applied++;
        case "pruned" -> pruned++;
        default -> {}
      }
      if ("failed".equals(r.get("action"))
          || "failed".equals(r.get("health"))
          || "degraded".equals(r.get("health"))
          || "progressing".equals(r.get("health"))) {
        failed++;
      }
      if (lines.size() < MAX_LINES) {
        lines.add(line(r));
      }
    }
    if (results.size() > MAX_LINES) {
      lines.add(
          (results.size() - MAX_LINES) + " more objects; GET the deployment's direct applies");
    }
    if (results.isEmpty() || "failed".equals(row.status()) && row.error() != null) {
      if (row.error() != null && !row.error().isBlank()) {
        lines.add(("failed".equals(row.status()) ? "failed: " : "") + row.error());
      }
    }
    String actor = "agent of " + row.cluster();
    Instant now = clock.instant();
    int count = lines.size();
    int a = applied;
    int p = pruned;
    int f = failed;
    tx.executeWithoutResult(
        t -> {
          int fresh = 0;
          for (int i = 0; i < lines.size(); i++) {
            fresh +=
                deployments.insertEvent(
                    org, dep, firstSeq + i, now, "deploying", actor, lines.get(i));
          }
          if (fresh > 0) {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("cluster", row.cluster());
            details.put("environment", row.environment());
            details.put("commit", row.commit());
            details.put("outcome", row.status());
            details.put("applied", a);
            details.put("pruned", p);
            details.put("failed", f);
            audit.record(
                org,
                new Actor("workflow", deploymentId, actor),
                "deployment.direct_applied",
                "deployment",
                deploymentId,
                details);
          }
        });
    return count;
  }

  // ---- the gateway's side -----------------------------------------------------------------

  /**
   * The message that carries a parked apply to its agent: the files under {@code <cluster>/} of the
   * deploy commit, what earlier applies of the project environment placed, and the project's fence,
   * which the agent checks every object against before it applies anything.
   *
   * @param fence the project's fence
   * @throws IllegalArgumentException when the files are more than one apply carries
   */
  public ApplyRelease message(DirectApplyRow row, String requestedBy, TenantFence fence) {
    SortedMap<String, byte[]> files =
        repos.readFiles(
            row.orgId(), row.projectId(), ObjectId.fromString(row.commit()), row.cluster());
    long bytes = files.values().stream().mapToLong(b -> b.length).sum();
    if (files.size() > MAX_FILES || bytes > MAX_BYTES) {
      throw new IllegalArgumentException(
          "the release's files for cluster "
              + row.cluster()
              + " are "
              + files.size()
              + " files and "
              + bytes
              + " bytes, more than direct deploy carries ("
              + MAX_FILES
              + " files, "
              + MAX_BYTES
              + " bytes); deliver this environment with Argo CD or Flux");
    }
    ApplyRelease.Builder m =
        ApplyRelease.newBuilder()
            .setApplyId(row.id())
            .setProject(row.project())
            .setEnvironment(row.environment())
            .setDeploymentId(row.deploymentId().toString())
            .setCommit(row.commit())
            .setHealthTimeoutSeconds(row.healthTimeoutS())
            .setRequestedBy(requestedBy == null ? "" : requestedBy)
            .setFence(fence)
            .setDeadline(
                Timestamp.newBuilder()
                    .setSeconds(row.dispatchDeadline().getEpochSecond())
                    .setNanos(row.dispatchDeadline().getNano()));
    files.forEach(
        (path, content) ->
            m.addFiles(
                ApplyFile.newBuilder()
                    .setPath(path)
                    .setContent(new String(content, StandardCharsets.UTF_8))));
    for (DirectAppliedObjectRow o :
        applies.applied(row.orgId(), row.clusterId(), row.projectId(), row.environmentId())) {
      m.addPrevious(
          AppliedObject.newBuilder()
              .setTenant(o.tenant())
              .setApiVersion(o.apiVersion())
              .setKind(o.kind())
              .setNamespace(o.namespace())
              .setName(o.name()));
    }
    return m.build();
  }

  /** Who asked for the apply's deployment, for the agent's log. */
  public String requester(DirectApplyRow row) {
    return deployments
        .findById(row.orgId(), row.deploymentId())
        .map(DeploymentRow::requesterName)
        .orElse("");
  }

  /**
   * Stores the agent's result and what the apply placed: after a success exactly the applied
   * objects (the pruned ones are gone), after a failure the applied ones are added to what was
   * there (nothing was pruned, so the next apply may still prune them).
   *
   * @return the outcome for the waiting activity
   */
  public DirectOutcome store(DirectApplyRow row, ApplyResult result) {
    boolean success = result.getOutcome() == ApplyResult.Outcome.SUCCEEDED;
    String error =
        success
            ? ""
            : switch (result.getOutcome()) {
              case REFUSED -> nonEmpty(result.getError(), "the agent refused the apply");
              case EXPIRED ->
                  nonEmpty(result.getError(), "the deadline had passed; nothing was applied");
              default -> {
                long failed =
                    result.getObjectsList().stream()
                        .filter(o -> !o.getHealth().equals("healthy"))
                        .count();
                yield failed > 0
                    ? failed
                        + " of "
                        + result.getObjectsCount()
                        + " objects failed or are not healthy"
                    : nonEmpty(result.getError(), "the agent reported a failure");
              }
            };
    List<Map<String, String>> lines = new ArrayList<>();
    for (ObjectResult o : result.getObjectsList()) {
      Map<String, String> l = new LinkedHashMap<>();
      l.put("tenant", o.getObject().getTenant());
      l.put("apiVersion", o.getObject().getApiVersion());
      l.put("kind", o.getObject().getKind());
      l.put("namespace", o.getObject().getNamespace());
      l.put("name", o.getObject().getName());
      l.put("action", o.getAction());
      l.put("health", o.getHealth());
      l.put("message", truncate(o.getMessage(), 1024));
      l.put("path", o.getPath());
      lines.add(l);
    }
    String resultsJson;
    try {
      resultsJson = json.writeValueAsString(lines);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    Instant now = clock.instant();
    tx.executeWithoutResult(
        t -> {
          applies.recordResult(
              row.orgId(),
              row.id(),
              success ? "succeeded" : "failed",
              success ? null : error,
              resultsJson,
              now);
          if (result.getOutcome() != ApplyResult.Outcome.SUCCEEDED
              && result.getOutcome() != ApplyResult.Outcome.FAILED) {
            return;
          }
          if (success) {
            applies.forgetApplied(
                row.orgId(), row.clusterId(), row.projectId(), row.environmentId());
          }
          for (ObjectResult o : result.getObjectsList()) {
            if (o.getAction().equals("applied") && !o.getObject().getName().isEmpty()) {
              AppliedObject a = o.getObject();
              applies.rememberApplied(
                  row.orgId(),
                  row.clusterId(),
                  row.projectId(),
                  row.environmentId(),
                  new DirectAppliedObjectRow(
                      a.getTenant(), a.getApiVersion(), a.getKind(), a.getNamespace(), a.getName()),
                  row.id(),
                  now);
            }
          }
        });
    return new DirectOutcome(success, error, result.getObjectsCount());
  }

  /** Fails a parked apply without an agent's answer (deadline passed, files too large). */
  public DirectOutcome fail(DirectApplyRow row, String error) {
    applies.recordResult(row.orgId(), row.id(), "failed", error, "[]", clock.instant());
    return new DirectOutcome(false, error, 0);
  }

  // ---- helpers ----------------------------------------------------------------------------

  private DeploymentRow deployment(UUID org, String deploymentId) {
    return deployments
        .findById(org, UUID.fromString(deploymentId))
        .orElseThrow(() -> new IllegalStateException("deployment " + deploymentId + " is gone"));
  }

  private List<Map<String, String>> results(String text) {
    try {
      return text == null ? List.of() : json.readValue(text, LINES);
    } catch (JsonProcessingException e) {
      return List.of();
    }
  }

  /**
   * One timeline line, e.g. "applied apps/v1 Deployment shop-dev/web (acme): healthy, rolled out".
   */
  static String line(Map<String, String> r) {
    StringBuilder b = new StringBuilder();
    b.append(r.getOrDefault("action", "")).append(' ');
    String kind = r.getOrDefault("kind", "");
    if (!kind.isEmpty()) {
      b.append(r.getOrDefault("apiVersion", "")).append(' ').append(kind).append(' ');
      String ns = r.getOrDefault("namespace", "");
      b.append(ns.isEmpty() ? "" : ns + "/").append(r.getOrDefault("name", ""));
      String tenant = r.getOrDefault("tenant", "");
      if (!tenant.isEmpty()) {
        b.append(" (").append(tenant).append(')');
      }
      b.append(": ").append(r.getOrDefault("health", ""));
      String msg = r.getOrDefault("message", "");
      if (!msg.isEmpty()) {
        b.append(", ").append(msg);
      }
    } else {
      b.append(r.getOrDefault("message", ""));
    }
    return truncate(b.toString(), 2048);
  }

  private static String truncate(String s, int max) {
    return s == null ? "" : s.length() <= max ? s : s.substring(0, max) + "…";
  }

  private static String nonEmpty(String s, String fallback) {
    return s == null || s.isBlank() ? fallback : s;
  }
}

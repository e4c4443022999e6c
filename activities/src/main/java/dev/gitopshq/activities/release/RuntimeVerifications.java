package dev.gitopshq.activities.release;

import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.ReconcileRequested;
import dev.gitopshq.agent.v1.RequestReconcile;
import dev.gitopshq.workflows.release.RuntimeActivities;
import dev.gitopshq.workflows.release.RuntimeObservation;
import dev.gitopshq.workflows.release.RuntimeTarget;
import io.temporal.activity.Activity;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Verifies on the hub that clusters run a deployment: which clusters deliver through Flux or Argo
 * CD, and, for each, reading its adapter through its agent until every tenant directory of the
 * cluster on the deploy branch ({@code <cluster>/<tenant>}) is delivered at the deployment's commit
 * and reported healthy. What each cluster ran is recorded for the deployment's evidence.
 *
 * <p>The adapter is read through the agent's stream on this replica. While another replica holds
 * the stream the watch fails its attempt after {@link #NOT_HERE}, so Temporal retries it, possibly
 * where the stream is.
 */
public class RuntimeVerifications implements RuntimeActivities {
  /** How often a cluster's adapter is read while the hub waits. */
  static final Duration POLL = Duration.ofSeconds(1);

  /** How long one live read may take. */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(3);

  /** How long a watch goes on while this replica holds no stream of the cluster. */
  static final Duration NOT_HERE = Duration.ofSeconds(15);

  private final RuntimeMapper runtime;
  private final DeploymentMapper deployments;
  private final ProjectMapper projects;
  private final OrgMapper orgs;
  private final ProjectRepos repos;
  private final AgentGatewayPort gateway;
  private final Clock clock;
  private final Consumer<String> heartbeat;
  private final Duration poll;
  private boolean reconcileOnCommit = true;

  /** Whether a verification first asks the cluster's adapters to reconcile (default true). */
  public RuntimeVerifications reconcileOnCommit(boolean on) {
    this.reconcileOnCommit = on;
    return this;
  }

  public RuntimeVerifications(
      RuntimeMapper runtime,
      DeploymentMapper deployments,
      ProjectMapper projects,
      OrgMapper orgs,
      ProjectRepos repos,
      AgentGatewayPort gateway,
      Clock clock) {
    this(
        runtime,
        deployments,
        projects,
        orgs,
        repos,
        gateway,
        clock,
        details -> Activity.getExecutionContext().heartbeat(details),
        POLL);
  }

  /** For tests: {@code heartbeat} instead of Temporal's, and another polling interval. */
  RuntimeVerifications(
      RuntimeMapper runtime,
      DeploymentMapper deployments,
      ProjectMapper projects,
      OrgMapper orgs,
      ProjectRepos repos,
      AgentGatewayPort gateway,
      Clock clock,
      Consumer<String> heartbeat,
      Duration poll) {
    this.runtime = runtime;
    this.deployments = deployments;
    this.projects = projects;
    this.orgs = orgs;
    this.repos = repos;
    this.gateway = gateway;
    this.clock = clock;
    this.heartbeat = heartbeat;
    this.poll = poll;
  }

  @Override
  public List<RuntimeTarget> runtimeTargets(String orgId, String deploymentId) {
    UUID org = UUID.fromString(orgId);
    DeploymentRow d = deployment(org, deploymentId);
    return runtime.targets(org, d.projectId(), d.environments()).stream()
        .map(
            t ->
                new RuntimeTarget(
                    t.environment(),
                    t.clusterId().toString(),
                    t.cluster(),
                    t.mode(),
                    t.timeoutSeconds()))
        .toList();
  }

  @Override
  public RuntimeObservation verify(
      String orgId, String deploymentId, RuntimeTarget target, String commit, long deadlineMillis) {
    UUID org = UUID.fromString(orgId);
    UUID clusterId = UUID.fromString(target.clusterId());
    DeploymentRow d = deployment(org, deploymentId);
    ProjectRow project =
        projects
            .findById(org, d.projectId())
            .orElseThrow(() -> new IllegalStateException("project " + d.projectId() + " is gone"));
    String slug = orgs.findById(org).map(o -> o.slug()).orElse(orgId);
    String repo = "/git/" + slug + "/" + project.name() + ".git";
    List<String> paths = tenantPaths(org, project.id(), commit, target.cluster());
    Instant deadline = Instant.ofEpochMilli(deadlineMillis);
    if (reconcileOnCommit) {
      requestReconcile(org, clusterId, repo, ProjectRepos.deployBranch(target.environment()));
    }
    Instant notHereSince = null;
    Look look;
    while (true) {
      look = look(org, clusterId, repo, target, commit, paths);
      Instant now = clock.instant();
      if (look.notHere()) {
        notHereSince = notHereSince == null ? now : notHereSince;
        if (!now.isBefore(notHereSince.plus(NOT_HERE)) && now.isBefore(deadline)) {
          throw new IllegalStateException(
              "this hub replica holds no stream of cluster "
                  + target.cluster()
                  + "; retried where it may be held");
        }
      } else {
        notHereSince = null;
      }
      if (look.observation().verified() || !now.isBefore(deadline)) {
        break;
      }
      heartbeat.accept(look.observation().reason());
      Duration left = Duration.between(now, deadline);
      pause(left.compareTo(poll) < 0 ? left : poll);
    }
    RuntimeObservation o = look.observation();
    if (!o.verified()) {
      o =
          new RuntimeObservation(
              false,
              o.deliverer(),
              o.revision(),
              o.health(),
              o.reason() + " (after " + target.timeoutSeconds() + " s)",
              o.observedAtMillis());
    }
    Instant observed = Instant.ofEpochMilli(o.observedAtMillis());
    runtime.record(
        new DeploymentClusterRow(
            org,
            d.id(),
            target.environment(),
            clusterId,
            target.cluster(),
            target.mode(),
            o.verified(),
            o.deliverer(),
            o.revision(),
            o.health(),
            o.reason(),
            observed,
            o.verified() ? observed : null));
    return o;
  }

  /**
   * Asks the cluster's adapters to fetch the branch now rather than at their next poll. Best
   * effort: without it the adapter still picks the commit up at its interval.
   */
  private void requestReconcile(UUID org, UUID clusterId, String repo, String branch) {
    try {
      Optional<CompletableFuture<ReconcileRequested>> asked =
          gateway.requestReconcile(
              org,
              clusterId,
              RequestReconcile.newBuilder()
                  .setRequestId(UUID.randomUUID().toString())
                  .setRepoUrl(repo)
                  .setBranch(branch)
                  .build(),
              READ_TIMEOUT);
      if (asked.isPresent()) {
        asked.get().get(READ_TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // The adapter's own poll still applies the commit; the verification says how it went.
    }
  }

  /** One reading of the cluster's adapter, and whether this replica could not reach the agent. */
  private record Look(RuntimeObservation observation, boolean notHere) {}

  private Look look(
      UUID org,
      UUID clusterId,
      String repo,
      RuntimeTarget target,
      String commit,
      List<String> paths) {
    long now = clock.millis();
    if (paths.isEmpty()) {
      return new Look(
          new RuntimeObservation(
              true, "", commit, "nothing delivered to " + target.cluster(), "", now),
          false);
    }
    ArgoApplications apps;
    try {
      Optional<CompletableFuture<ArgoApplications>> answer =
          gateway.listApplications(org, clusterId, READ_TIMEOUT);
      if (answer.isEmpty()) {
        return new Look(
            new RuntimeObservation(
                false, "", "", "", "the agent of " + target.cluster() + " is not connected", now),
            true);
      }
      apps = answer.get().get(READ_TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading " + target.cluster());
    } catch (Exception e) {
      return new Look(
          new RuntimeObservation(
              false,
              "",
              "",
              "",
              "the agent of " + target.cluster() + " did not answer in time",
              now),
          false);
    }
    if (apps.getForbidden()
        || !apps.getError().isEmpty()
            && apps.getKustomizationsCount() == 0
            && apps.getApplicationsCount() == 0) {
      return new Look(
          new RuntimeObservation(
              false,
              "",
              "",
              "",
              "the agent of " + target.cluster() + " cannot read its adapter: " + apps.getError(),
              now),
          false);
    }
    String branch = ProjectRepos.deployBranch(target.environment());
    List<String> deliverers = new ArrayList<>();
    List<String> healths = new ArrayList<>();
    String revision = "";
    for (String path : paths) {
      Optional<AdapterStatus> found =
          AdapterStatus.find(
              repo, branch, path, apps.getApplicationsList(), apps.getKustomizationsList());
      if (found.isEmpty()) {
        return new Look(
            new RuntimeObservation(
                false,
                String.join(", ", deliverers),
                revision,
                "",
                "no "
                    + (target.mode().equals("flux") ? "Flux Kustomization" : "Argo CD Application")
                    + " on "
                    + target.cluster()
                    + " delivers "
                    + branch
                    + " at "
                    + path,
                now),
            false);
      }
      AdapterStatus s = found.get();
      deliverers.add(s.deliverer());
      revision = s.revision() == null ? "" : s.revision();
      if (!s.runs(commit)) {
        String why =
            !commit.equals(s.revision())
                ? s.deliverer()
                    + " runs "
                    + (s.revision() == null ? "no revision yet" : shortSha(s.revision()))
                    + ", not "
                    + shortSha(commit)
                    + " ("
                    + s.health()
                    + (s.message() == null ? "" : ": " + s.message())
                    + ")"
                : s.deliverer()
                    + " is not healthy: "
                    + s.health()
                    + (s.message() == null ? "" : ": " + s.message());
        return new Look(
            new RuntimeObservation(
                false, String.join(", ", deliverers), revision, s.health(), why, now),
            false);
      }
      healths.add(paths.size() == 1 ? s.health() : path + " " + s.health());
    }
    return new Look(
        new RuntimeObservation(
            true, String.join(", ", deliverers), commit, String.join("; ", healths), "", now),
        false);
  }

  /**
   * {@code <cluster>/<tenant>} of every tenant directory the deploy commit holds for the cluster.
   */
  private List<String> tenantPaths(UUID org, UUID projectId, String commit, String cluster) {
    TreeSet<String> tenants = new TreeSet<>();
    for (String path :
        repos.listFiles(org, projectId, ObjectId.fromString(commit), cluster).keySet()) {
      int slash = path.indexOf('/');
      if (slash > 0) {
        tenants.add(cluster + "/" + path.substring(0, slash));
      }
    }
    return List.copyOf(tenants);
  }

  private DeploymentRow deployment(UUID org, String deploymentId) {
    return deployments
        .findById(org, UUID.fromString(deploymentId))
        .orElseThrow(() -> new IllegalStateException("deployment " + deploymentId + " is gone"));
  }

  private static String shortSha(String sha) {
    return sha.substring(0, Math.min(12, sha.length()));
  }

  /** Waits before the next reading (tests move their clock instead). */
  void pause(Duration d) {
    if (d.isNegative() || d.isZero()) {
      return;
    }
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the cluster");
    }
  }
}

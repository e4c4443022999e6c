package dev.gitopshq.hub.release;

import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.release.AdapterStatus;
import dev.gitopshq.activities.release.ClusterBindingRow;
import dev.gitopshq.agent.v1.ArgoApplication;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.FluxKustomization;
import dev.gitopshq.hub.cluster.LiveAgent;
import dev.gitopshq.hub.delivery.project.ProjectService;
import dev.gitopshq.hub.gateway.StreamForwarder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Service;

/**
 * Whether each binding of a cluster is in sync: the Argo CD Application (or else the Flux
 * Kustomization with its GitRepository) whose source is the project's hosted repository, branch
 * {@code deploy/<environment>} and path {@code <cluster>/<tenant>}, read live through the agent.
 * Its sync status, and whether the revision it synced is the commit the hub last deployed there.
 */
@Service
public class BindingSync {
  static final Duration TIMEOUT = Duration.ofSeconds(3);
  public static final String SYNCED = AdapterStatus.SYNCED;
  public static final String OUT_OF_SYNC = AdapterStatus.OUT_OF_SYNC;
  public static final String UNKNOWN = AdapterStatus.UNKNOWN;

  /** The delivery mode in which the agent applies each deployment itself. */
  static final String DIRECT = "direct";

  /** What {@code application} says of a binding the agent applies itself. */
  public static final String DIRECT_APPLY = "direct apply";

  private final ProjectService projects;
  private final AgentGatewayPort gateway;
  private final LiveAgent live;

  public BindingSync(ProjectService projects, AgentGatewayPort gateway, LiveAgent live) {
    this.projects = projects;
    this.gateway = gateway;
    this.live = live;
  }

  /**
   * A binding's sync state.
   *
   * @param application the Argo CD Application that delivers it, {@code namespace/name}
   * @param atLastDeployment whether the synced revision is the commit last deployed there; null
   *     when either is unknown
   * @param reason why the state is Unknown
   */
  public record State(
      String status,
      String application,
      String syncedRevision,
      Boolean atLastDeployment,
      String reason) {
    static State unknown(String reason) {
      return new State(UNKNOWN, null, null, null, reason);
    }

    /** What a deliverer reports; whether it runs the last deployment follows from the revisions. */
    static State of(
        String status, String application, String synced, String deployed, String reason) {
      Boolean atLast = synced == null || deployed == null ? null : synced.equals(deployed);
      return new State(status, application, synced, atLast, reason);
    }
  }

  /** The Applications and Kustomizations of the cluster, or why they cannot be read now. */
  public record Applications(
      List<ArgoApplication> items, List<FluxKustomization> kustomizations, String unavailable) {
    public Applications(List<ArgoApplication> items, String unavailable) {
      this(items, List.of(), unavailable);
    }
  }

  /**
   * The cluster's Argo CD Applications and Flux Kustomizations, or why they cannot be read now. An
   * agent that lost its stream lately is waited for as every live read waits ({@link
   * LiveAgent#reachable}, {@code GITOPSHQ_LIVE_RECONNECT_WAIT}); one never connected, or gone for
   * longer than the wait, is not.
   */
  public Applications applications(LiveAgent.Cluster c) {
    ClusterRow cluster = c.row();
    if (!cluster.capabilities().contains(Capabilities.ARGOCD_READ)
        && !cluster.capabilities().contains(Capabilities.OBSERVE)) {
      return new Applications(
          List.of(), "the agent has neither argocd.read nor observe to read Argo CD or Flux");
    }
    if (!live.reachable(c)) {
      return new Applications(List.of(), "the agent is not connected");
    }
    try {
      Optional<CompletableFuture<ArgoApplications>> answer =
          gateway.listApplications(cluster.orgId(), cluster.id(), TIMEOUT);
      if (answer.isEmpty()) {
        return new Applications(List.of(), "the agent is not connected to any hub replica");
      }
      ArgoApplications apps =
          answer.get().get(live.deadline(TIMEOUT).toMillis() + 500, TimeUnit.MILLISECONDS);
      if (apps.getForbidden()) {
        return new Applications(List.of(), apps.getError());
      }
      return new Applications(apps.getApplicationsList(), apps.getKustomizationsList(), null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Applications(List.of(), "interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof StreamForwarder.NotHeld gone) {
        return new Applications(
            List.of(), "the agent is not connected (" + gone.getMessage() + ")");
      }
      return new Applications(List.of(), "the agent did not list its Argo CD applications in time");
    } catch (Exception e) {
      return new Applications(List.of(), "the agent did not list its Argo CD applications in time");
    }
  }

  /** The state of one binding of {@code cluster}, matched among {@code apps}. */
  public State state(UUID orgId, String cluster, ClusterBindingRow b, Applications apps) {
    return state(projects.cloneUrl(orgId, b.project()), cluster, b, apps);
  }

  /** The state of one binding whose project's repository is at {@code cloneUrl}. */
  static State state(String cloneUrl, String cluster, ClusterBindingRow b, Applications apps) {
    if (DIRECT.equals(b.deliveryMode())) {
      return direct(b);
    }
    if (apps.unavailable() != null) {
      return State.unknown(apps.unavailable());
    }
    String branch = "deploy/" + b.environment();
    String path = cluster + "/" + b.tenant();
    return AdapterStatus.find(cloneUrl, branch, path, apps.items(), apps.kustomizations())
        .map(
            a ->
                State.of(
                    a.status(),
                    a.deliverer(),
                    a.revision(),
                    b.deployedCommit(),
                    a.status().equals(SYNCED) ? null : a.message()))
        .orElseGet(
            () ->
                State.unknown(
                    "no Argo CD application or Flux kustomization tracks "
                        + branch
                        + " at path "
                        + path));
  }

  /**
   * A binding in delivery mode {@code direct}: nothing watches a branch; the agent's newest apply
   * of the project environment says what the cluster runs. Synced when it succeeded (at the last
   * deployment when it applied that commit), OutOfSync while one is under way or when it failed
   * (with the apply's error), Unknown before the first.
   */
  static State direct(ClusterBindingRow b) {
    if (b.directStatus() == null) {
      return State.unknown("no direct apply of " + b.environment() + " has run on this cluster");
    }
    return switch (b.directStatus()) {
      case "succeeded" ->
          State.of(SYNCED, DIRECT_APPLY, b.directCommit(), b.deployedCommit(), null);
      case "failed" ->
          State.of(
              OUT_OF_SYNC,
              DIRECT_APPLY,
              null,
              b.deployedCommit(),
              "the newest direct apply failed"
                  + (b.directError() == null ? "" : ": " + b.directError()));
      default ->
          State.of(
              OUT_OF_SYNC,
              DIRECT_APPLY,
              null,
              b.deployedCommit(),
              "the agent is applying " + abbreviate(b.directCommit()));
    };
  }

  /** Whether every binding is delivered directly (nothing to ask the agent's adapters). */
  static boolean allDirect(List<ClusterBindingRow> rows) {
    return rows.stream().allMatch(b -> DIRECT.equals(b.deliveryMode()));
  }

  private static String abbreviate(String commit) {
    return commit == null ? "a commit" : commit.substring(0, Math.min(12, commit.length()));
  }
}

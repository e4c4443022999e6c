package dev.gitopshq.hub.release;

import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.release.ClusterBindingRow;
import dev.gitopshq.agent.v1.ArgoApplication;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.FluxKustomization;
import dev.gitopshq.hub.cluster.LiveAgent;
import dev.gitopshq.hub.delivery.project.ProjectService;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
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
  public static final String SYNCED = "Synced";
  public static final String OUT_OF_SYNC = "OutOfSync";
  public static final String UNKNOWN = "Unknown";

  private final ProjectService projects;
  private final AgentGatewayPort gateway;

  public BindingSync(ProjectService projects, AgentGatewayPort gateway) {
    this.projects = projects;
    this.gateway = gateway;
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

  /** The cluster's Argo CD Applications and Flux Kustomizations, or why they cannot be read now. */
  public Applications applications(LiveAgent.Cluster c) {
    ClusterRow cluster = c.row();
    if (!cluster.capabilities().contains(Capabilities.ARGOCD_READ)
        && !cluster.capabilities().contains(Capabilities.OBSERVE)) {
      return new Applications(
          List.of(), "the agent has neither argocd.read nor observe to read Argo CD or Flux");
    }
    if (!c.connected()) {
      return new Applications(List.of(), "the agent is not connected");
    }
    try {
      Optional<java.util.concurrent.CompletableFuture<ArgoApplications>> answer =
          gateway.listApplications(cluster.orgId(), cluster.id(), TIMEOUT);
      if (answer.isEmpty()) {
        return new Applications(List.of(), "the agent is not connected to this hub");
      }
      ArgoApplications apps = answer.get().get(TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
      if (apps.getForbidden()) {
        return new Applications(List.of(), apps.getError());
      }
      return new Applications(apps.getApplicationsList(), apps.getKustomizationsList(), null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Applications(List.of(), "interrupted");
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
    if (apps.unavailable() != null) {
      return State.unknown(apps.unavailable());
    }
    String repo = repoPath(cloneUrl);
    String branch = "deploy/" + b.environment();
    String path = cluster + "/" + b.tenant();
    for (ArgoApplication a : apps.items()) {
      if (repo.equals(repoPath(a.getRepoUrl()))
          && branch.equals(a.getTargetRevision())
          && path.equals(cleanPath(a.getPath()))) {
        String status =
            switch (a.getSyncStatus()) {
              case SYNCED, OUT_OF_SYNC -> a.getSyncStatus();
              default -> UNKNOWN;
            };
        return State.of(
            status,
            a.getNamespace() + "/" + a.getName(),
            a.getSyncedRevision().isEmpty() ? null : a.getSyncedRevision(),
            b.deployedCommit(),
            status.equals(UNKNOWN) ? "Argo CD reports " + a.getSyncStatus() : null);
      }
    }
    for (FluxKustomization k : apps.kustomizations()) {
      if (repo.equals(repoPath(k.getRepoUrl()))
          && branch.equals(k.getBranch())
          && path.equals(cleanPath(k.getPath()))) {
        String status =
            switch (k.getReady()) {
              case "True" -> SYNCED;
              case "False" -> OUT_OF_SYNC;
              default -> UNKNOWN;
            };
        return State.of(
            status,
            "flux:" + k.getNamespace() + "/" + k.getName(),
            fluxRevision(k.getAppliedRevision()),
            b.deployedCommit(),
            status.equals(SYNCED)
                ? null
                : blankTo(k.getReadyMessage(), "Flux reports Ready " + k.getReady()));
      }
    }
    return State.unknown(
        "no Argo CD application or Flux kustomization tracks " + branch + " at path " + path);
  }

  /**
   * The part of a repository URL that names the repository, host-independent: Argo CD may reach the
   * hub by another name than its public URL. {@code https://hub/git/acme/shop.git} → {@code
   * /git/acme/shop}.
   */
  static String repoPath(String url) {
    try {
      String p = URI.create(url.trim()).getPath();
      if (p == null) {
        return "";
      }
      p = p.replaceAll("/+$", "");
      if (p.endsWith(".git")) {
        p = p.substring(0, p.length() - 4);
      }
      return p.toLowerCase(Locale.ROOT);
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  /** The commit of Flux's "deploy/dev@sha1:4f2e…" (or a bare sha); null when there is none. */
  static String fluxRevision(String revision) {
    if (revision == null || revision.isEmpty()) {
      return null;
    }
    int colon = revision.lastIndexOf(':');
    int at = revision.lastIndexOf('@');
    String sha = revision.substring(Math.max(colon, at) + 1);
    return sha.isEmpty() ? null : sha;
  }

  private static String blankTo(String s, String fallback) {
    return s == null || s.isBlank() ? fallback : s;
  }

  static String cleanPath(String path) {
    String p = path.trim();
    while (p.startsWith("./")) {
      p = p.substring(2);
    }
    return p.replaceAll("^/+|/+$", "");
  }
}

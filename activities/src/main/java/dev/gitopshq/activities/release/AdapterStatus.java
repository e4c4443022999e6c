package dev.gitopshq.activities.release;

import dev.gitopshq.agent.v1.ArgoApplication;
import dev.gitopshq.agent.v1.FluxKustomization;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a cluster's runtime adapter says of one delivery path of a project's repository: the Argo CD
 * Application, or else the Flux Kustomization (with its GitRepository), whose source is the
 * project's repository, branch {@code deploy/<environment>} and path {@code <cluster>/<tenant>}.
 * The Bindings tab and the deployment's verification both read it here.
 *
 * @param deliverer {@code <namespace>/<name>} of the Application, or {@code
 *     flux:<namespace>/<name>} of the Kustomization
 * @param status {@link #SYNCED}, {@link #OUT_OF_SYNC} or {@link #UNKNOWN}
 * @param revision the commit the adapter last applied; null when it reports none
 * @param healthy whether the adapter reports the delivered objects healthy (Argo CD's health
 *     Healthy; Flux's Ready True)
 * @param health the adapter's own words for it, e.g. {@code Synced, Healthy} or {@code Ready True}
 * @param message what the adapter says when it is not in sync or healthy; null otherwise
 */
public record AdapterStatus(
    String deliverer,
    String status,
    String revision,
    boolean healthy,
    String health,
    String message) {
  public static final String SYNCED = "Synced";
  public static final String OUT_OF_SYNC = "OutOfSync";
  public static final String UNKNOWN = "Unknown";

  /** Whether the adapter runs {@code commit} and reports it in sync and healthy. */
  public boolean runs(String commit) {
    return SYNCED.equals(status) && healthy && commit != null && commit.equals(revision);
  }

  /**
   * The status of the delivery of {@code branch} at {@code path} from the repository at {@code
   * cloneUrl} among a cluster's Applications and Kustomizations; empty when none delivers it.
   */
  public static Optional<AdapterStatus> find(
      String cloneUrl,
      String branch,
      String path,
      List<ArgoApplication> applications,
      List<FluxKustomization> kustomizations) {
    String repo = repoPath(cloneUrl);
    for (ArgoApplication a : applications) {
      if (repo.equals(repoPath(a.getRepoUrl()))
          && branch.equals(a.getTargetRevision())
          && path.equals(cleanPath(a.getPath()))) {
        String status =
            switch (a.getSyncStatus()) {
              case SYNCED, OUT_OF_SYNC -> a.getSyncStatus();
              default -> UNKNOWN;
            };
        boolean healthy = "Healthy".equals(a.getHealthStatus());
        String message =
            status.equals(UNKNOWN)
                ? "Argo CD reports " + a.getSyncStatus()
                : !status.equals(SYNCED) || healthy
                    ? null
                    : blankTo(a.getHealthMessage(), "Argo CD reports " + a.getHealthStatus());
        return Optional.of(
            new AdapterStatus(
                a.getNamespace() + "/" + a.getName(),
                status,
                a.getSyncedRevision().isEmpty() ? null : a.getSyncedRevision(),
                healthy,
                a.getSyncStatus() + ", " + a.getHealthStatus(),
                message));
      }
    }
    for (FluxKustomization k : kustomizations) {
      if (repo.equals(repoPath(k.getRepoUrl()))
          && branch.equals(k.getBranch())
          && path.equals(cleanPath(k.getPath()))) {
        String status =
            switch (k.getReady()) {
              case "True" -> SYNCED;
              case "False" -> OUT_OF_SYNC;
              default -> UNKNOWN;
            };
        // A Kustomization that does not wait for health (the hub's own) is healthy when the
        // agent finds its workloads rolled out; one that waits is healthy when Flux says Ready.
        boolean workloads = k.getWorkloads().isEmpty() || k.getWorkloads().equals("healthy");
        boolean healthy = status.equals(SYNCED) && workloads;
        return Optional.of(
            new AdapterStatus(
                "flux:" + k.getNamespace() + "/" + k.getName(),
                status,
                fluxRevision(k.getAppliedRevision()),
                healthy,
                "Ready "
                    + blankTo(k.getReady(), "Unknown")
                    + (k.getWorkloads().isEmpty() ? "" : ", workloads " + k.getWorkloads()),
                !status.equals(SYNCED)
                    ? blankTo(k.getReadyMessage(), "Flux reports Ready " + k.getReady())
                    : workloads ? null : k.getWorkloadsMessage()));
      }
    }
    return Optional.empty();
  }

  /**
   * The part of a repository URL that names the repository, host-independent: Argo CD may reach the
   * hub by another name than its public URL. {@code https://hub/git/acme/shop.git} → {@code
   * /git/acme/shop}.
   */
  public static String repoPath(String url) {
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
  public static String fluxRevision(String revision) {
    if (revision == null || revision.isEmpty()) {
      return null;
    }
    int colon = revision.lastIndexOf(':');
    int at = revision.lastIndexOf('@');
    String sha = revision.substring(Math.max(colon, at) + 1);
    return sha.isEmpty() ? null : sha;
  }

  /** A source path without {@code ./} and outer slashes. */
  public static String cleanPath(String path) {
    String p = path.trim();
    while (p.startsWith("./")) {
      p = p.substring(2);
    }
    return p.replaceAll("^/+|/+$", "");
  }

  private static String blankTo(String s, String fallback) {
    return s == null || s.isBlank() ? fallback : s;
  }
}

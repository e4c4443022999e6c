package dev.gitopshq.hub.release;

import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.release.DeploymentMapper;
import dev.gitopshq.activities.release.DeploymentRow;
import dev.gitopshq.activities.release.ReleaseRow;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.release.DeploymentRequest;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Promotes a release to the next environment (or the one named), from an environment whose clusters
 * ran it; from one where it was only written (degraded), only under break-glass.
 */
@Service
public class Promotions {
  private final DeploymentStarts starts;
  private final ProjectEnvironmentMapper projectEnvironments;
  private final DeploymentMapper deployments;

  public Promotions(
      DeploymentStarts starts,
      ProjectEnvironmentMapper projectEnvironments,
      DeploymentMapper deployments) {
    this.starts = starts;
    this.projectEnvironments = projectEnvironments;
    this.deployments = deployments;
  }

  @Transactional
  public DeploymentStarts.Started promote(
      HubPrincipal caller, UUID projectId, int number, ReleaseRequests.Promote req) {
    UUID org = caller.orgId();
    ProjectRow project = starts.lock(org, projectId);
    ReleaseRow release = starts.release(org, project, number);
    if (release.isRollback()) {
      throw ApiException.conflict(
          "release #"
              + number
              + " is a rollback; promote the release it restores, or create a new release");
    }
    List<ProjectEnvironmentRow> envs = projectEnvironments.list(org, projectId);
    List<String> order = envs.stream().map(ProjectEnvironmentRow::environment).toList();
    List<DeploymentRow> history = deployments.forRelease(org, release.id());
    // Promotion goes on from an environment whose clusters ran the release; from one where it was
    // written but a cluster did not run it (degraded), only under break-glass.
    boolean breakGlass = Boolean.TRUE.equals(req.breakGlass());
    Set<String> verified = verifiedIn(history);
    Set<String> written = ReleaseService.deployedTo(history);
    Set<String> deployedTo = breakGlass ? written : verified;

    ProjectEnvironmentRow target;
    if (req.environment() != null) {
      target = DeploymentStarts.environment(project, envs, req.environment(), "environment");
      int i = order.indexOf(target.environment());
      if (i == 0) {
        throw ApiException.conflict(
            target.environment()
                + " is the first environment of "
                + project.name()
                + ": releases are deployed there when they are created, not promoted");
      }
      String before = order.get(i - 1);
      if (!deployedTo.contains(before) && written.contains(before)) {
        throw unverified(number, before, history);
      }
      if (!deployedTo.contains(before)) {
        throw ApiException.conflict(
            "release #"
                + number
                + " is not deployed to "
                + before
                + ", the environment before "
                + target.environment());
      }
    } else {
      int furthest = -1;
      int furthestWritten = -1;
      for (int i = 0; i < order.size(); i++) {
        if (deployedTo.contains(order.get(i))) {
          furthest = i;
        }
        if (written.contains(order.get(i))) {
          furthestWritten = i;
        }
      }
      if (furthestWritten > furthest) {
        throw unverified(number, order.get(furthestWritten), history);
      }
      if (furthest < 0) {
        throw ApiException.conflict(
            "release #" + number + " is not deployed to any environment yet");
      }
      if (furthest == order.size() - 1) {
        throw ApiException.conflict(
            "release #"
                + number
                + " is already in "
                + order.getLast()
                + ", the last environment of "
                + project.name());
      }
      target = envs.get(furthest + 1);
    }
    for (DeploymentRow d : history) {
      if (!d.isFinal() && d.environments().contains(target.environment())) {
        throw ApiException.conflict(
            "release #"
                + number
                + " is already on its way to "
                + target.environment()
                + " (deployment "
                + d.id()
                + " is "
                + d.status()
                + ")");
      }
    }
    DeploymentRow deployment =
        starts.start(
            caller,
            project,
            release,
            DeploymentRequest.PROMOTE,
            List.of(target),
            breakGlass,
            req.justification(),
            "Promote release #" + number + " of " + project.name() + " to " + target.environment());
    return new DeploymentStarts.Started(deployment, ReleaseService.workflowId(deployment));
  }

  /** The 409 of a promotion from an environment where the release is degraded. */
  private static ApiException unverified(
      int number, String environment, List<DeploymentRow> history) {
    String why =
        history.stream()
            .filter(d -> "degraded".equals(d.status()) && d.environments().contains(environment))
            .map(DeploymentRow::detail)
            .reduce((a, b) -> b)
            .orElse("");
    return ApiException.conflict(
        "release #"
            + number
            + " is degraded in "
            + environment
            + ": its commit was written but not every cluster ran it"
            + (why.isEmpty() ? "" : " (" + why + ")")
            + "; promoting from an unverified environment needs breakGlass with a justification");
  }

  /** The environments whose clusters ran one of the release's deployments ({@code deployed}). */
  static Set<String> verifiedIn(List<DeploymentRow> history) {
    Set<String> out = new LinkedHashSet<>();
    for (DeploymentRow d : history) {
      if ("deployed".equals(d.status())) {
        out.addAll(d.environments());
      }
    }
    return out;
  }
}

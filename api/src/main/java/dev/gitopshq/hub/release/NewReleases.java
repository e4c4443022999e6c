package dev.gitopshq.hub.release;

import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.release.ConfigHistory;
import dev.gitopshq.activities.release.DeploymentRow;
import dev.gitopshq.activities.release.ReleaseMapper;
import dev.gitopshq.activities.release.ReleaseRow;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.release.DeploymentRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates a release of a project's configuration at its current revision and deploys it to the
 * first environment (or the one named), under the project's lock.
 */
@Service
public class NewReleases {
  /** How many configuration changes a release lists at most. */
  static final int MAX_LISTED_CHANGES = 100;

  private final DeploymentStarts starts;
  private final ProjectEnvironmentMapper projectEnvironments;
  private final ReleaseMapper releases;
  private final ProjectRepos repos;
  private final ConfigHistory history;

  public NewReleases(
      DeploymentStarts starts,
      ProjectEnvironmentMapper projectEnvironments,
      ReleaseMapper releases,
      ProjectRepos repos,
      ConfigHistory history) {
    this.starts = starts;
    this.projectEnvironments = projectEnvironments;
    this.releases = releases;
    this.repos = repos;
    this.history = history;
  }

  @Transactional
  public DeploymentStarts.Created create(
      HubPrincipal caller, UUID projectId, ReleaseRequests.Create req) {
    UUID org = caller.orgId();
    ProjectRow project = starts.lock(org, projectId);
    List<ProjectEnvironmentRow> envs = projectEnvironments.list(org, projectId);
    if (envs.isEmpty()) {
      throw ApiException.conflict(
          "project " + project.name() + " has no environments to release to");
    }
    ProjectEnvironmentRow target =
        req.environment() == null
            ? envs.getFirst()
            : DeploymentStarts.environment(project, envs, req.environment(), "environment");

    ReleaseRow previous = releases.previousStandard(org, projectId, null).orElse(null);
    long previousRevision = previous == null ? 0 : previous.configRevision();
    long revision = project.configRevision();
    if (revision <= previousRevision) {
      throw ApiException.conflict(
          "nothing to release: the configuration of "
              + project.name()
              + " has not changed since "
              + (previous == null ? "the project was created" : "release #" + previous.number()));
    }
    List<ConfigHistory.Change> changes =
        repos.exists(org, projectId)
            ? history.changesAtHead(
                org, projectId, 0, Math.min(revision - previousRevision, MAX_LISTED_CHANGES))
            : List.of();

    Map<String, Object> details = new LinkedHashMap<>();
    details.put("configRevision", revision);
    details.put("previousRelease", previous == null ? null : previous.number());
    details.put("changes", revision - previousRevision);
    ReleaseRow release =
        starts.insertRelease(
            caller,
            project,
            ReleaseRow.STANDARD,
            req.description(),
            revision,
            null,
            null,
            null,
            details);

    DeploymentRow deployment =
        starts.start(
            caller,
            project,
            release,
            DeploymentRequest.DEPLOY,
            List.of(target),
            Boolean.TRUE.equals(req.breakGlass()),
            req.justification(),
            "Deploy release #"
                + release.number()
                + " of "
                + project.name()
                + " to "
                + target.environment());
    return new DeploymentStarts.Created(
        release, deployment, changes, ReleaseService.workflowId(deployment));
  }
}

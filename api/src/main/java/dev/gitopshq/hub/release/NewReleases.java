package dev.gitopshq.hub.release;

import dev.gitopshq.activities.audit.AuditLog;
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
import java.time.Clock;
import java.time.Instant;
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
  private final AuditLog audit;
  private final Clock clock;

  public NewReleases(
      DeploymentStarts starts,
      ProjectEnvironmentMapper projectEnvironments,
      ReleaseMapper releases,
      ProjectRepos repos,
      ConfigHistory history,
      AuditLog audit,
      Clock clock) {
    this.starts = starts;
    this.projectEnvironments = projectEnvironments;
    this.releases = releases;
    this.repos = repos;
    this.history = history;
    this.audit = audit;
    this.clock = clock;
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

    Instant now = clock.instant();
    ReleaseRow release =
        new ReleaseRow(
            UUID.randomUUID(),
            org,
            projectId,
            releases.nextNumber(org, projectId),
            ReleaseRow.STANDARD,
            req.description() == null ? "" : req.description().strip(),
            revision,
            null,
            null,
            null,
            caller.id(),
            caller.name(),
            now);
    releases.insert(release);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("project", project.name());
    d.put("number", release.number());
    d.put("configRevision", revision);
    d.put("previousRelease", previous == null ? null : previous.number());
    d.put("changes", revision - previousRevision);
    d.put("description", release.description());
    audit.record(org, caller.actor(), "release.created", "release", release.id().toString(), d);

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

package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.ProjectFenceMapper;
import dev.gitopshq.activities.delivery.ProjectFenceRow;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.agent.v1.TenantFences;
import dev.gitopshq.hub.delivery.Author;
import dev.gitopshq.hub.delivery.ProjectChanges;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.Step;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The fence the organization's admins put around a project ({@code project_fences}, evaluated by
 * {@link TenantFences}). Setting it is a configuration change: it is written into {@code
 * config/fence.yaml} through {@link ProjectChanges}, so it is committed on main and the next
 * generation checks every object against it.
 */
@Service
public class ProjectFences {
  private final ProjectMapper projects;
  private final ProjectFenceMapper fences;
  private final ProjectChanges changes;
  private final AuditLog audit;
  private final Clock clock;

  public ProjectFences(
      ProjectMapper projects,
      ProjectFenceMapper fences,
      ProjectChanges changes,
      AuditLog audit,
      Clock clock) {
    this.projects = projects;
    this.fences = fences;
    this.changes = changes;
    this.audit = audit;
    this.clock = clock;
  }

  /** {@code PUT /projects/{id}/fence}: the whole fence; a missing list is empty. */
  public record FencePut(
      List<String> allowedNamespaces, List<String> clusterScopedKinds, List<String> deniedKinds) {
    public void validate() {
      Checks c = new Checks();
      entries(c, "allowedNamespaces", allowedNamespaces, TenantFences::namespaceEntryProblem);
      entries(c, "clusterScopedKinds", clusterScopedKinds, TenantFences::kindEntryProblem);
      entries(c, "deniedKinds", deniedKinds, TenantFences::kindEntryProblem);
      c.throwIfInvalid();
    }

    private static void entries(
        Checks c, String field, List<String> list, Function<String, String> problem) {
      if (list == null) {
        return;
      }
      if (list.size() > TenantFences.MAX_ENTRIES) {
        c.fail(field, "must list at most " + TenantFences.MAX_ENTRIES + " entries");
        return;
      }
      for (int i = 0; i < list.size(); i++) {
        String why = problem.apply(list.get(i));
        if (why != null) {
          c.fail(field + "[" + i + "]", why);
        } else if (list.indexOf(list.get(i)) < i) {
          c.fail(field + "[" + i + "]", "'" + list.get(i) + "' is listed twice");
        }
      }
    }

    static List<String> orEmpty(List<String> list) {
      return list == null ? List.of() : list;
    }
  }

  /** The project's fence: its row, or empty for the default fence. */
  @Transactional(readOnly = true)
  public Optional<ProjectFenceRow> fence(UUID orgId, UUID projectId) {
    projects
        .findById(orgId, projectId)
        .orElseThrow(() -> ApiException.notFound("project " + projectId));
    return fences.find(orgId, projectId);
  }

  /** Replaces the project's fence, audits it and commits it into config/. */
  public Applied<ProjectFenceRow> put(HubPrincipal caller, UUID projectId, FencePut req) {
    UUID orgId = caller.orgId();
    Author author = Author.of(caller);
    return changes.apply(
        orgId,
        projectId,
        author,
        "config",
        p -> {
          Optional<ProjectFenceRow> before = fences.find(orgId, projectId);
          ProjectFenceRow row =
              new ProjectFenceRow(
                  orgId,
                  projectId,
                  FencePut.orEmpty(req.allowedNamespaces()),
                  FencePut.orEmpty(req.clusterScopedKinds()),
                  FencePut.orEmpty(req.deniedKinds()),
                  author.name(),
                  clock.instant());
          fences.upsert(row);
          Map<String, Object> details = new LinkedHashMap<>();
          details.put("project", p.name());
          details.put("before", before.map(ProjectFences::lists).orElse(lists(null)));
          details.put("after", lists(row));
          audit.record(
              orgId,
              author.actor(),
              "project.fence.updated",
              "project",
              projectId.toString(),
              details);
          return new Step<>(
              fences.find(orgId, projectId).orElseThrow(),
              Message.of("Set the fence of project " + p.name(), "fence.updated"));
        });
  }

  private static Map<String, Object> lists(ProjectFenceRow row) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(
        "allowedNamespaces",
        row == null ? TenantFences.DEFAULT.getAllowedNamespacesList() : row.allowedNamespaces());
    m.put(
        "clusterScopedKinds",
        row == null ? TenantFences.DEFAULT.getClusterScopedKindsList() : row.clusterScopedKinds());
    m.put(
        "deniedKinds", row == null ? TenantFences.DEFAULT.getDeniedKindsList() : row.deniedKinds());
    return m;
  }
}

package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.delivery.ChartMapper;
import dev.gitopshq.activities.delivery.ChartRow;
import dev.gitopshq.activities.delivery.DeliveryJson;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.WorkloadMapper;
import dev.gitopshq.activities.delivery.WorkloadRow;
import dev.gitopshq.hub.delivery.Author;
import dev.gitopshq.hub.delivery.ProjectChanges;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.Step;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** A project's workloads: a chart version with default values and the path of its image tag. */
@Service
public class ProjectWorkloads {
  private final ConfigSupport support;
  private final WorkloadMapper workloads;
  private final ChartMapper charts;
  private final ProjectChanges changes;
  private final Clock clock;

  public ProjectWorkloads(
      ConfigSupport support,
      WorkloadMapper workloads,
      ChartMapper charts,
      ProjectChanges changes,
      Clock clock) {
    this.support = support;
    this.workloads = workloads;
    this.charts = charts;
    this.changes = changes;
    this.clock = clock;
  }

  public List<WorkloadRow> workloads(UUID orgId, UUID projectId) {
    support.project(orgId, projectId);
    return workloads.list(orgId, projectId);
  }

  @Transactional(readOnly = true)
  public WorkloadRow workload(UUID orgId, UUID projectId, String name) {
    ProjectRow p = support.project(orgId, projectId);
    return workloads
        .findByName(orgId, projectId, name)
        .orElseThrow(ConfigSupport.notInProject("workload " + name, p));
  }

  /** The chart version a workload names, or a 400 naming chart / version. */
  private ChartRef chartVersion(UUID orgId, String chart, String version) {
    ChartRow c =
        charts
            .findByName(orgId, chart)
            .orElseThrow(
                () ->
                    ApiException.invalid("chart", "no chart '" + chart + "' in the organization"));
    if (charts.findVersion(orgId, c.id(), version).isEmpty()) {
      throw ApiException.invalid(
          "version", "chart '" + chart + "' has no version '" + version + "'");
    }
    return new ChartRef(c.id(), chart, version);
  }

  private record ChartRef(UUID id, String name, String version) {}

  public Applied<WorkloadRow> createWorkload(
      HubPrincipal caller, UUID projectId, ProjectRequests.WorkloadWrite req) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          support.nameIsFree(orgId, projectId, req.name());
          ChartRef chart = chartVersion(orgId, req.chart(), req.version());
          Instant now = clock.instant();
          workloads.insert(
              new WorkloadRow(
                  UUID.randomUUID(),
                  orgId,
                  projectId,
                  req.name(),
                  chart.id(),
                  chart.name(),
                  chart.version(),
                  null,
                  DeliveryJson.write(req.values() == null ? Map.of() : req.values()),
                  req.tagPath(),
                  now,
                  now,
                  DeliveryJson.write(req.kindScopes() == null ? Map.of() : req.kindScopes())));
          return new Step<>(
              workloads.findByName(orgId, projectId, req.name()).orElseThrow(),
              Message.of(
                  "Create workload "
                      + req.name()
                      + " from chart "
                      + chart.name()
                      + " "
                      + chart.version(),
                  "workload.created",
                  "service",
                  req.name()));
        });
  }

  public Applied<WorkloadRow> updateWorkload(
      HubPrincipal caller, UUID projectId, String name, ProjectRequests.WorkloadWrite req) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          WorkloadRow w =
              workloads
                  .findByName(orgId, projectId, name)
                  .orElseThrow(ConfigSupport.notInProject("workload " + name, p));
          ChartRef chart = chartVersion(orgId, req.chart(), req.version());
          workloads.update(
              orgId,
              w.id(),
              chart.id(),
              chart.version(),
              DeliveryJson.write(req.values() == null ? Map.of() : req.values()),
              req.tagPath(),
              clock.instant());
          workloads.setKindScopes(
              orgId,
              projectId,
              name,
              DeliveryJson.write(req.kindScopes() == null ? Map.of() : req.kindScopes()));
          return new Step<>(
              workloads.findByName(orgId, projectId, name).orElseThrow(),
              Message.of(
                  "Update workload "
                      + name
                      + " (chart "
                      + chart.name()
                      + " "
                      + chart.version()
                      + ")",
                  "workload.updated",
                  "service",
                  name));
        });
  }

  public Applied<Void> deleteWorkload(HubPrincipal caller, UUID projectId, String name) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          WorkloadRow w =
              workloads
                  .findByName(orgId, projectId, name)
                  .orElseThrow(ConfigSupport.notInProject("workload " + name, p));
          workloads.delete(orgId, w.id());
          return ConfigSupport.removal(
              Message.of("Delete workload " + name, "workload.deleted", "service", name));
        });
  }

  /**
   * Sets a workload's image tag at its image tag path in its default values (the image-update
   * webhook), as the given author.
   */
  public Applied<WorkloadRow> setImageTag(
      UUID orgId, UUID projectId, String workload, String tag, Author author) {
    return changes.apply(
        orgId,
        projectId,
        author,
        "webhook",
        p -> {
          WorkloadRow w =
              workloads
                  .findByName(orgId, projectId, workload)
                  .orElseThrow(ConfigSupport.notInProject("workload " + workload, p));
          Map<String, Object> values = w.valueMap();
          setPath(values, w.imageTagPath(), tag);
          workloads.update(
              orgId,
              w.id(),
              w.chartId(),
              w.chartVersion(),
              DeliveryJson.write(values),
              w.imageTagPath(),
              clock.instant());
          return new Step<>(
              workloads.findByName(orgId, projectId, workload).orElseThrow(),
              Message.of(
                  "Set image tag of " + workload + " to " + tag,
                  "workload.image_updated",
                  "service",
                  workload));
        });
  }

  /** Sets a dotted path in nested values, creating the objects on the way. */
  @SuppressWarnings("unchecked")
  static void setPath(Map<String, Object> values, String path, Object value) {
    String[] keys = path.split("\\.");
    Map<String, Object> at = values;
    for (int i = 0; i < keys.length - 1; i++) {
      Object next = at.get(keys[i]);
      if (next == null) {
        next = new TreeMap<String, Object>();
        at.put(keys[i], next);
      } else if (!(next instanceof Map)) {
        throw ApiException.conflict(
            "the values at '"
                + String.join(".", Arrays.copyOf(keys, i + 1))
                + "' are not an object, so "
                + path
                + " cannot be set");
      }
      at = (Map<String, Object>) next;
    }
    at.put(keys[keys.length - 1], value);
  }

  // ---- tenant-environment values
  // -----------------------------------------------------------------

}

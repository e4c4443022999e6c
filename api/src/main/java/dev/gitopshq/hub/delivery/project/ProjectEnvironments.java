package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.DeliveryJson;
import dev.gitopshq.activities.delivery.EnvironmentMapper;
import dev.gitopshq.activities.delivery.EnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectEnvironmentClusterRow;
import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectFenceMapper;
import dev.gitopshq.activities.delivery.ProjectFenceRow;
import dev.gitopshq.activities.delivery.VariableMapper;
import dev.gitopshq.agent.v1.TenantFences;
import dev.gitopshq.hub.delivery.ProjectChanges;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.Step;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.Checks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A project's environments, each with the clusters it delivers to and their overrides. Every change
 * runs through {@link ProjectChanges#apply}: one transaction, one commit of config/.
 */
@Service
public class ProjectEnvironments {
  private final ConfigSupport support;
  private final EnvironmentMapper orgEnvironments;
  private final ClusterMapper clusters;
  private final ProjectEnvironmentMapper environments;
  private final VariableMapper variables;
  private final ProjectFenceMapper fences;
  private final EnvironmentSelectors selectors;

  public ProjectEnvironments(
      ConfigSupport support,
      EnvironmentMapper orgEnvironments,
      ClusterMapper clusters,
      ProjectEnvironmentMapper environments,
      VariableMapper variables,
      ProjectFenceMapper fences,
      EnvironmentSelectors selectors) {
    this.selectors = selectors;
    this.support = support;
    this.orgEnvironments = orgEnvironments;
    this.clusters = clusters;
    this.environments = environments;
    this.variables = variables;
    this.fences = fences;
  }

  /** A project environment with its clusters. */
  public record Environment(
      ProjectEnvironmentRow row, List<ProjectEnvironmentClusterRow> clusters) {}

  @Transactional(readOnly = true)
  public List<Environment> environments(UUID orgId, UUID projectId) {
    support.project(orgId, projectId);
    return environmentsOf(orgId, projectId);
  }

  private List<Environment> environmentsOf(UUID orgId, UUID projectId) {
    List<ProjectEnvironmentClusterRow> all = environments.clusters(orgId, projectId);
    return environments.list(orgId, projectId).stream()
        .map(
            e ->
                new Environment(
                    e,
                    all.stream().filter(c -> c.environmentId().equals(e.environmentId())).toList()))
        .toList();
  }

  public Applied<Environment> putEnvironment(
      HubPrincipal caller, UUID projectId, String name, ProjectRequests.ProjectEnvironmentPut req) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          Checks c = new Checks();
          Optional<EnvironmentRow> env = orgEnvironments.findByName(orgId, name);
          if (env.isEmpty()) {
            c.fail("environment", "no environment '" + name + "' in the organization");
          }
          List<ClusterRow> resolved = new ArrayList<>();
          List<ProjectRequests.ClusterRef> refs =
              req.clusters() == null ? List.of() : req.clusters();
          for (int i = 0; i < refs.size(); i++) {
            Optional<ClusterRow> cluster = clusters.findByName(orgId, refs.get(i).cluster());
            if (cluster.isEmpty()) {
              c.fail(
                  "clusters[" + i + "].cluster",
                  "no cluster '" + refs.get(i).cluster() + "' in the organization");
            } else {
              resolved.add(cluster.get());
            }
          }
          String literal = req.literalNamespace();
          if (literal != null) {
            String refusal =
                TenantFences.namespaceRefusal(
                    fences
                        .find(orgId, projectId)
                        .map(ProjectFenceRow::toProto)
                        .orElse(TenantFences.DEFAULT),
                    literal);
            if (refusal != null) {
              c.fail("namespacePattern", "gives only " + literal + ", which " + refusal);
            }
          }
          c.throwIfInvalid();
          UUID envId = env.get().id();
          boolean existed = support.environment(orgId, projectId, name).isPresent();
          environments.upsert(orgId, projectId, envId, req.pattern());
          environments.setCreateNamespace(orgId, projectId, envId, req.createsNamespace());
          LabelSelector selector =
              req.clusterSelector() == null ? null : req.clusterSelector().canonical();
          environments.setSelector(
              orgId,
              projectId,
              envId,
              selector == null ? null : DeliveryJson.write(selector),
              req.selectorMode());
          environments.deleteClusters(orgId, projectId, envId);
          for (int i = 0; i < refs.size(); i++) {
            Map<String, Object> overrides =
                refs.get(i).overrides() == null ? Map.of() : refs.get(i).overrides();
            environments.insertCluster(
                orgId,
                projectId,
                envId,
                resolved.get(i).id(),
                DeliveryJson.write(overrides),
                req.modeOf(refs.get(i)));
          }
          if (selector != null) {
            ProjectEnvironmentRow saved = support.environment(orgId, projectId, name).orElseThrow();
            selectors.reconcile(saved, clusters.list(orgId, Map.of()));
          }
          Environment view =
              environmentsOf(orgId, projectId).stream()
                  .filter(e -> e.row().environment().equals(name))
                  .findFirst()
                  .orElseThrow();
          String clusterNames =
              String.join(", ", refs.stream().map(ProjectRequests.ClusterRef::cluster).toList());
          String description =
              (existed ? "Update environment " : "Add environment ")
                  + name
                  + on(clusterNames, selector);
          return new Step<>(
              view,
              Message.of(
                  description,
                  existed ? "environment.updated" : "environment.added",
                  "environment",
                  name));
        });
  }

  /** Where an environment delivers, for its commit message. */
  private static String on(String clusterNames, LabelSelector selector) {
    if (selector == null) {
      return clusterNames.isEmpty() ? " (no clusters)" : " on " + clusterNames;
    }
    String selected = "clusters matching " + selector;
    return " on " + (clusterNames.isEmpty() ? selected : clusterNames + " and " + selected);
  }

  public Applied<Void> deleteEnvironment(HubPrincipal caller, UUID projectId, String name) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          ProjectEnvironmentRow env =
              support
                  .environment(orgId, projectId, name)
                  .orElseThrow(ConfigSupport.notInProject("environment " + name, p));
          variables.deleteForEnvironment(orgId, projectId, env.environmentId());
          environments.delete(orgId, projectId, env.environmentId());
          return ConfigSupport.removal(
              Message.of("Remove environment " + name, "environment.removed", "environment", name));
        });
  }

  // ---- tenants --------------------------------------------------------------------------------

}

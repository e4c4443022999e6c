package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterMemberships;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.ProjectEnvironmentClusterRow;
import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.hub.delivery.Author;
import dev.gitopshq.hub.delivery.ProjectChanges;
import dev.gitopshq.hub.delivery.ProjectChanges.AcrossStep;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.OrgApplied;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.springframework.stereotype.Service;

/**
 * Binds clusters to project environments by label selector. A selector matches the organization's
 * registered clusters whose labels it selects (never another organization's: every cluster read
 * here is the organization's). The matches are kept in the environment's clusters, marked as
 * selected, so that a cluster joining or leaving changes the project's configuration with a commit
 * like any other change, and the next generation delivers to it.
 *
 * <p>Matches are brought up to date when an environment is saved (inside that change), when a
 * cluster's labels change or it is deleted (inside that change, across the organization's projects)
 * and when a cluster registers (the registration workflow calls {@link #registered}).
 */
@Service
public class EnvironmentSelectors implements ClusterMemberships {
  /** The kind of change of every commit a selector makes on its own. */
  public static final String CHANGE = "environment.clusters_selected";

  private final ProjectEnvironmentMapper environments;
  private final ClusterMapper clusters;
  private final ProjectChanges changes;

  public EnvironmentSelectors(
      ProjectEnvironmentMapper environments, ClusterMapper clusters, ProjectChanges changes) {
    this.environments = environments;
    this.clusters = clusters;
    this.changes = changes;
  }

  /** How one cluster's place in one environment changed. */
  enum Kind {
    /** The selector binds a cluster the environment did not have. */
    JOINS,
    /** The selector no longer matches a cluster only it bound. */
    LEAVES,
    /** The selector now also matches a cluster the environment names. */
    MATCHED,
    /** The selector no longer matches a cluster the environment also names (it stays). */
    UNMATCHED
  }

  record Change(String environment, String cluster, Kind kind) {
    String describe() {
      return switch (kind) {
        case JOINS -> "cluster " + cluster + " joins " + environment;
        case LEAVES -> "cluster " + cluster + " leaves " + environment;
        case MATCHED -> "the selector of " + environment + " now also matches " + cluster;
        case UNMATCHED -> "the selector of " + environment + " no longer matches " + cluster;
      };
    }
  }

  /**
   * Whether a selector binds this cluster: it matches the labels (set in the hub or reported by the
   * agent) of a registered cluster that no admin decision holds back (hub acceptance: a pending or
   * rejected cluster joins nothing, whichever change asks).
   */
  static boolean selects(LabelSelector selector, ClusterRow c) {
    return selector != null && c.usable() && selector.matches(c.effectiveLabels());
  }

  /**
   * Brings one environment's selected clusters up to date with its selector and the organization's
   * clusters. Call inside the project's change (its row locked).
   *
   * @param orgClusters the organization's clusters as they are now, less any being deleted
   */
  List<Change> reconcile(ProjectEnvironmentRow env, List<ClusterRow> orgClusters) {
    List<ProjectEnvironmentClusterRow> current =
        environments.clusters(env.orgId(), env.projectId()).stream()
            .filter(r -> r.environmentId().equals(env.environmentId()))
            .toList();
    return reconcile(env, orgClusters, current);
  }

  /**
   * Brings the environment's selected clusters among {@code candidates} and {@code current} up to
   * date: a candidate the selector matches is selected, a selected row whose cluster is not a
   * matching candidate is let go. Rows and clusters outside both lists are not looked at.
   *
   * @param current the environment's rows of the clusters in scope
   */
  private List<Change> reconcile(
      ProjectEnvironmentRow env,
      List<ClusterRow> candidates,
      List<ProjectEnvironmentClusterRow> current) {
    UUID orgId = env.orgId();
    Map<UUID, ProjectEnvironmentClusterRow> rows = new LinkedHashMap<>();
    current.forEach(r -> rows.put(r.clusterId(), r));
    LabelSelector selector = env.selector();
    Set<UUID> matched =
        candidates.stream()
            .filter(c -> c.orgId().equals(orgId) && selects(selector, c))
            .map(ClusterRow::id)
            .collect(Collectors.toSet());
    List<Change> out = new ArrayList<>();
    for (ClusterRow c : candidates) {
      ProjectEnvironmentClusterRow row = rows.get(c.id());
      if (matched.contains(c.id()) && (row == null || !row.bySelector())) {
        environments.select(
            orgId, env.projectId(), env.environmentId(), c.id(), env.selectorDeliveryMode());
        out.add(new Change(env.environment(), c.name(), row == null ? Kind.JOINS : Kind.MATCHED));
      }
    }
    for (ProjectEnvironmentClusterRow row : rows.values()) {
      if (row.bySelector() && !matched.contains(row.clusterId())) {
        if (row.byName()) {
          environments.unselectNamed(orgId, env.projectId(), env.environmentId(), row.clusterId());
          out.add(new Change(env.environment(), row.cluster(), Kind.UNMATCHED));
        } else {
          environments.unselect(orgId, env.projectId(), env.environmentId(), row.clusterId());
          out.add(new Change(env.environment(), row.cluster(), Kind.LEAVES));
        }
      }
    }
    out.sort(Comparator.comparing(Change::environment).thenComparing(Change::cluster));
    return out;
  }

  /**
   * A change of one cluster (its labels, its registration or its deletion) run across the
   * organization's projects: with every project locked, {@code mutation} runs, then that cluster's
   * place in every environment with a selector is brought up to date, each project whose clusters
   * changed as one commit naming {@code cause}. Only this cluster is looked at: the cost of a
   * change does not grow with the organization's fleet (a registration of the 10,000th cluster
   * reads one cluster, not 10,000).
   *
   * @param leaving whether the cluster is being deleted: no selector may match it any more
   * @param then runs last in the transaction (e.g. deletes the leaving cluster)
   */
  public <T> OrgApplied<T> clusterChanged(
      UUID orgId,
      Author author,
      String cause,
      UUID clusterId,
      boolean leaving,
      Supplier<T> mutation,
      Runnable then) {
    return changes.applyAcross(
        orgId,
        author,
        locked -> {
          T value = mutation.get();
          Map<UUID, List<Change>> byProject = new LinkedHashMap<>();
          List<ProjectEnvironmentRow> selecting = environments.listSelecting(orgId);
          if (!selecting.isEmpty()) {
            List<ClusterRow> candidates =
                leaving ? List.of() : clusters.findById(orgId, clusterId).stream().toList();
            List<ProjectEnvironmentClusterRow> places = environments.placesOf(orgId, clusterId);
            for (ProjectEnvironmentRow env : selecting) {
              List<ProjectEnvironmentClusterRow> current =
                  places.stream()
                      .filter(
                          r ->
                              r.projectId().equals(env.projectId())
                                  && r.environmentId().equals(env.environmentId()))
                      .toList();
              List<Change> changed = reconcile(env, candidates, current);
              if (!changed.isEmpty()) {
                byProject.computeIfAbsent(env.projectId(), k -> new ArrayList<>()).addAll(changed);
              }
            }
          }
          Map<UUID, Message> messages = new LinkedHashMap<>();
          byProject.forEach(
              (projectId, changed) -> messages.put(projectId, message(changed, cause)));
          then.run();
          return new AcrossStep<>(value, messages);
        });
  }

  /** The commit message of a project's selector changes, e.g. {@code Cluster eu-2 joins prod}. */
  static Message message(List<Change> changed, String cause) {
    String text = changed.stream().map(Change::describe).collect(Collectors.joining("; "));
    Set<String> envs = changed.stream().map(Change::environment).collect(Collectors.toSet());
    return Message.of(
        Character.toUpperCase(text.charAt(0)) + text.substring(1) + " (" + cause + ")",
        CHANGE,
        "environment",
        envs.size() == 1 ? envs.iterator().next() : null);
  }

  @Override
  public void registered(UUID orgId, UUID clusterId) {
    clusters
        .findById(orgId, clusterId)
        .ifPresent(
            c -> {
              Actor agent = Actor.agent(c.id().toString(), c.name());
              Author author = new Author(agent, c.name() + " (agent " + c.id() + ")");
              clusterChanged(
                  orgId,
                  author,
                  "cluster " + c.name() + " registered",
                  c.id(),
                  false,
                  () -> null,
                  () -> {});
            });
  }
}

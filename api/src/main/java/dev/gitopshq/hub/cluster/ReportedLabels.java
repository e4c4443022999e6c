package dev.gitopshq.hub.cluster;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.agent.v1.ClusterIdentity;
import dev.gitopshq.hub.delivery.Author;
import dev.gitopshq.hub.delivery.project.EnvironmentSelectors;
import dev.gitopshq.hub.gateway.AgentGateway;
import dev.gitopshq.hub.gateway.AgentStreamListener;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The labels an agent reports (its chart's {@code cluster.labels}, sent with the cluster's identity
 * in Hello). They are kept apart from the labels set in the hub, and selectors and policies see the
 * two merged, the hub's value winning for a key set in both ({@link ClusterRow#effectiveLabels()}).
 * A Hello whose labels differ from those stored changes them as a cluster relabelled in the hub
 * does: across the organization's projects, each project whose environments the cluster joins or
 * leaves gets one configuration commit naming the agent's report as the cause, and the audit log
 * records {@code cluster.labels_reported} with both sets.
 *
 * <p>The change runs on its own thread, off the gateway's: a Hello is never held up by projects'
 * commits. If it fails the stored labels stay as they were, so the agent's next Hello tries again.
 * The labels of a pending cluster (hub acceptance) are taken from its Register; after acceptance
 * its reconnect's Hello brings any later change.
 */
@Component
public class ReportedLabels implements AgentStreamListener {
  private static final Logger log = LoggerFactory.getLogger(ReportedLabels.class);

  private final ClusterMapper clusters;
  private final EnvironmentSelectors selectors;
  private final AuditLog audit;
  private final AgentGateway gateway;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "reported-labels");
            t.setDaemon(true);
            return t;
          });

  public ReportedLabels(
      ClusterMapper clusters,
      EnvironmentSelectors selectors,
      AuditLog audit,
      AgentGateway gateway) {
    this.clusters = clusters;
    this.selectors = selectors;
    this.audit = audit;
    this.gateway = gateway;
  }

  @PostConstruct
  void register() {
    gateway.addListener(this);
  }

  @PreDestroy
  void stop() {
    worker.shutdownNow();
  }

  @Override
  public void identityReported(UUID orgId, UUID clusterId, ClusterIdentity identity) {
    Map<String, String> labels = new TreeMap<>(identity.getLabelsMap());
    try {
      worker.execute(
          () -> {
            try {
              apply(orgId, clusterId, labels);
            } catch (RuntimeException e) {
              log.warn(
                  "cluster {}: the labels its agent reports could not be applied yet ({}); its"
                      + " next hello tries again",
                  clusterId,
                  e.toString());
            }
          });
    } catch (RejectedExecutionException e) {
      // Shutting down: the next Hello after a restart brings the labels again.
    }
  }

  /**
   * Applies the labels an agent reported, unless they are those stored.
   *
   * @return whether the stored labels changed
   */
  public boolean apply(UUID orgId, UUID clusterId, Map<String, String> labels) {
    Optional<ClusterRow> found = clusters.findById(orgId, clusterId);
    if (found.isEmpty() || found.get().reportedLabels().equals(labels)) {
      return false;
    }
    ClusterRow c = found.get();
    Actor agent = Actor.agent(c.id().toString(), c.name());
    Author author = new Author(agent, c.name() + " (agent " + c.id() + ")");
    Boolean changed =
        selectors
            .clusterChanged(
                orgId,
                author,
                "labels reported by the agent of cluster " + c.name(),
                clusterId,
                false,
                () -> {
                  ClusterRow before = clusters.findById(orgId, clusterId).orElse(null);
                  if (before == null || clusters.reportLabels(orgId, clusterId, labels) == 0) {
                    return false;
                  }
                  Map<String, Object> details = new LinkedHashMap<>();
                  details.put(
                      "reportedLabels",
                      Map.of("from", new TreeMap<>(before.reportedLabels()), "to", labels));
                  details.put("effectiveLabels", effective(before, labels));
                  audit.record(
                      orgId,
                      agent,
                      "cluster.labels_reported",
                      "cluster",
                      c.id().toString(),
                      details);
                  return true;
                },
                () -> {})
            .value();
    return Boolean.TRUE.equals(changed);
  }

  private static Map<String, String> effective(ClusterRow c, Map<String, String> reported) {
    Map<String, String> out = new TreeMap<>(reported);
    out.putAll(c.labels());
    return out;
  }

  @Override
  public String toString() {
    return "reported cluster labels";
  }
}

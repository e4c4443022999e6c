package dev.gitopshq.activities.agentwatch;

import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterStatus;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.workflows.agentwatch.AgentWatchActivities;
import dev.gitopshq.workflows.governance.Notification;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Checks the cluster's derived status and sends the disconnect notification. */
public class AgentWatchActivitiesImpl implements AgentWatchActivities {
  private final ClusterMapper clusters;
  private final WebhookNotifier webhook;
  private final Clock clock;

  public AgentWatchActivitiesImpl(ClusterMapper clusters, WebhookNotifier webhook, Clock clock) {
    this.clusters = clusters;
    this.webhook = webhook;
    this.clock = clock;
  }

  @Override
  public boolean stillDisconnected(
      String orgId, String clusterId, long connectedAtMillis, long timeoutSeconds) {
    return clusters
        .findById(UUID.fromString(orgId), UUID.fromString(clusterId))
        .map(
            c ->
                ClusterStatus.of(c, clock.instant(), Duration.ofSeconds(timeoutSeconds))
                    == ClusterStatus.Disconnected)
        .orElse(false);
  }

  @Override
  public void notifyDisconnected(Notification n) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("orgId", n.orgId());
    data.put("clusterId", n.clusterId());
    data.put("summary", n.summary());
    webhook.send(n.orgId(), n.eventId(), n.event(), data);
  }
}

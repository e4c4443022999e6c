package dev.gitopshq.activities.rotation;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.workflows.rotation.RotationActivities;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.transaction.support.TransactionTemplate;

/** The rotation workflow's store activities. */
public class RotationActivitiesImpl implements RotationActivities {
  private static final Actor ACTOR = Actor.system("token-rotation");
  private final ClusterMapper clusters;
  private final ClusterTokenMapper tokens;
  private final AuditLog audit;
  private final WebhookNotifier webhook;
  private final TransactionTemplate tx;
  private final Clock clock;

  public RotationActivitiesImpl(
      ClusterMapper clusters,
      ClusterTokenMapper tokens,
      AuditLog audit,
      WebhookNotifier webhook,
      TransactionTemplate tx,
      Clock clock) {
    this.clusters = clusters;
    this.tokens = tokens;
    this.audit = audit;
    this.webhook = webhook;
    this.tx = tx;
    this.clock = clock;
  }

  @Override
  public String streamHolder(String orgId, String clusterId) {
    return clusters
        .findById(UUID.fromString(orgId), UUID.fromString(clusterId))
        .map(ClusterRow::connectedReplica)
        .orElse(null);
  }

  @Override
  public void activate(
      String orgId, String clusterId, String rotationId, String newTokenId, long graceSeconds) {
    UUID org = UUID.fromString(orgId);
    UUID cluster = UUID.fromString(clusterId);
    UUID token = UUID.fromString(newTokenId);
    tx.executeWithoutResult(
        t -> {
          if (tokens.activate(org, token) == 0) {
            return; // Already active: an earlier attempt did it.
          }
          Instant until = clock.instant().plusSeconds(graceSeconds);
          tokens.expireOthersAt(org, cluster, token, until);
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("rotationId", rotationId);
          d.put("newTokenId", newTokenId);
          d.put("oldTokensValidUntil", until.toString());
          audit.record(org, ACTOR, "cluster.token_rotation.activated", "cluster", clusterId, d);
        });
  }

  @Override
  public List<String> revokeOlder(
      String orgId, String clusterId, String rotationId, String newTokenId) {
    UUID org = UUID.fromString(orgId);
    return tx.execute(
        t -> {
          List<UUID> revoked =
              tokens.revokeAgentTokensExcept(
                  org, UUID.fromString(clusterId), UUID.fromString(newTokenId), clock.instant());
          if (!revoked.isEmpty()) {
            audit.record(
                org,
                ACTOR,
                "cluster.token_rotation.completed",
                "cluster",
                clusterId,
                Map.of(
                    "rotationId",
                    rotationId,
                    "revokedTokenIds",
                    revoked.stream().map(UUID::toString).toList()));
          }
          return revoked.stream().map(UUID::toString).toList();
        });
  }

  @Override
  public void abandon(
      String orgId, String clusterId, String rotationId, String newTokenId, String reason) {
    UUID org = UUID.fromString(orgId);
    tx.executeWithoutResult(
        t -> {
          tokens.revokeRotation(org, UUID.fromString(rotationId), clock.instant());
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("rotationId", rotationId);
          d.put("newTokenId", newTokenId);
          d.put("reason", reason);
          audit.record(org, ACTOR, "cluster.token_rotation.failed", "cluster", clusterId, d);
        });
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("orgId", orgId);
    data.put("clusterId", clusterId);
    data.put("summary", "token rotation failed; the current token stays valid: " + reason);
    webhook.send(orgId, "token-rotation-" + rotationId + ":failed", "token_rotation.failed", data);
  }
}

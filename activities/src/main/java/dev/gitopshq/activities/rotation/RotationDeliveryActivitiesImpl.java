package dev.gitopshq.activities.rotation;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.workflows.rotation.RotationDeliveryActivities;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issues a rotation's token and sends it down the agent's stream on this replica. The plaintext
 * exists only in this method and on the wire; PostgreSQL gets its hash, Temporal its id.
 */
public class RotationDeliveryActivitiesImpl implements RotationDeliveryActivities {
  private final ClusterTokenMapper tokens;
  private final AgentGatewayPort gateway;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;

  public RotationDeliveryActivitiesImpl(
      ClusterTokenMapper tokens,
      AgentGatewayPort gateway,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock) {
    this.tokens = tokens;
    this.gateway = gateway;
    this.audit = audit;
    this.tx = tx;
    this.clock = clock;
  }

  @Override
  public String issueAndSend(String orgId, String clusterId, String rotationId) {
    UUID org = UUID.fromString(orgId);
    UUID cluster = UUID.fromString(clusterId);
    UUID rotation = UUID.fromString(rotationId);
    Tokens.IssuedToken token = Tokens.issue(TokenKind.AGENT);
    UUID tokenId = UUID.randomUUID();
    tx.executeWithoutResult(
        t -> {
          Instant now = clock.instant();
          // A retried attempt cannot resend the earlier plaintext (it was never stored): replace
          // it.
          tokens.revokeRotation(org, rotation, now);
          tokens.insertPending(tokenId, org, cluster, token.hash(), rotation, now);
          audit.record(
              org,
              Actor.system("token-rotation"),
              "cluster.token_rotation.issued",
              "cluster",
              clusterId,
              Map.of("rotationId", rotationId, "newTokenId", tokenId.toString()));
        });
    if (!gateway.sendTokenRotation(org, cluster, rotationId, token.value())) {
      tokens.revokeRotation(org, rotation, clock.instant());
      throw new IllegalStateException(
          "the agent of cluster " + clusterId + " is not connected to this replica");
    }
    return tokenId.toString();
  }
}

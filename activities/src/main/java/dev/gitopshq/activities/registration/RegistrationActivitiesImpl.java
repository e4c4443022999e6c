package dev.gitopshq.activities.registration;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMemberships;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.cluster.ClusterTokenRow;
import dev.gitopshq.workflows.registration.RegistrationActivities;
import dev.gitopshq.workflows.registration.RegistrationState;
import io.temporal.failure.ApplicationFailure;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.transaction.annotation.Transactional;

/** The registration workflow's activities, against PostgreSQL. */
public class RegistrationActivitiesImpl implements RegistrationActivities {
  private final ClusterTokenMapper tokens;
  private final AuditLog audit;
  private final ClusterMemberships memberships;

  public RegistrationActivitiesImpl(ClusterTokenMapper tokens, AuditLog audit) {
    this(tokens, audit, ClusterMemberships.NONE);
  }

  public RegistrationActivitiesImpl(
      ClusterTokenMapper tokens, AuditLog audit, ClusterMemberships memberships) {
    this.tokens = tokens;
    this.audit = audit;
    this.memberships = memberships;
  }

  @Override
  public void joinSelectingEnvironments(String orgId, String clusterId, String tokenId) {
    // Each project's change runs in its own transaction (the hub's change pipeline).
    memberships.registered(UUID.fromString(orgId), UUID.fromString(clusterId));
  }

  @Override
  @Transactional(readOnly = true)
  public void confirmIssued(String orgId, String clusterId, String tokenId) {
    UUID id = UUID.fromString(tokenId);
    // Waits for the issuing request's commit (the workflow starts inside its transaction).
    tokens.lockIssue(id);
    if (tokens.findById(UUID.fromString(orgId), id).isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "registration token "
              + tokenId
              + " does not exist: the request that issued it was rolled back",
          "RegistrationTokenGone");
    }
  }

  @Override
  @Transactional
  public RegistrationState expireToken(String orgId, String clusterId, String tokenId) {
    UUID org = UUID.fromString(orgId);
    UUID id = UUID.fromString(tokenId);
    if (tokens.expireIfUnused(org, id) == 1) {
      audit.record(
          org,
          Actor.system("registration-workflow"),
          "cluster.registration_token.expired",
          "cluster",
          clusterId,
          Map.of("tokenId", tokenId));
      return RegistrationState.EXPIRED;
    }
    Optional<ClusterTokenRow> row = tokens.findById(org, id);
    return switch (row.map(ClusterTokenRow::status).orElse("expired")) {
      case "consumed" -> RegistrationState.REGISTERED;
      case "superseded", "revoked" -> RegistrationState.SUPERSEDED;
      default -> RegistrationState.EXPIRED;
    };
  }
}

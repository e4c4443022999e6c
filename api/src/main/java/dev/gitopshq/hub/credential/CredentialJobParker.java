package dev.gitopshq.hub.credential;

import dev.gitopshq.activities.credential.CredentialMapper;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.workflows.credential.CredentialJobActivities;
import dev.gitopshq.workflows.credential.CredentialSynced;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Parks one credential of a sync round as a {@code credential_sync} job with the activity's task
 * token and returns without completing: the replica holding the agent's stream sends it ({@link
 * CredentialSyncJobs} builds the message then) and completes the activity with the agent's answer.
 * The job names the credential only by its request id.
 */
@Component
public class CredentialJobParker implements CredentialJobActivities {
  /** How long a stream has to take the job before the hub answers it "not sent". */
  static final Duration DEADLINE = Duration.ofMinutes(2);

  private final CredentialMapper credentials;
  private final AgentJobMapper jobs;
  private final AgentGatewayPort gateway;
  private final TransactionTemplate tx;
  private final Clock clock;

  public CredentialJobParker(
      CredentialMapper credentials,
      AgentJobMapper jobs,
      AgentGatewayPort gateway,
      TransactionTemplate tx,
      Clock clock) {
    this.credentials = credentials;
    this.jobs = jobs;
    this.gateway = gateway;
    this.tx = tx;
    this.clock = clock;
  }

  @Override
  public CredentialSynced send(String orgId, String clusterId, String syncId, String credentialId) {
    ActivityExecutionContext ctx = Activity.getExecutionContext();
    UUID org = UUID.fromString(orgId);
    UUID cluster = UUID.fromString(clusterId);
    UUID decision = UUID.fromString(syncId);
    UUID credential = UUID.fromString(credentialId);
    Instant now = clock.instant();
    tx.executeWithoutResult(
        t -> {
          credentials.pendingForCredentialDecision(org, cluster, credential, decision, now);
          jobs.park(
              UUID.randomUUID(),
              org,
              cluster,
              AgentJob.KIND_CREDENTIAL_SYNC,
              CredentialSyncJobs.requestId(syncId, credential),
              ctx.getTaskToken(),
              null,
              null,
              now.plus(DEADLINE),
              now);
        });
    // Also after a repeat: a job parked by a crashed replica may still wait for a stream.
    gateway.commandQueued(org, cluster);
    ctx.doNotCompleteOnReturn();
    return null;
  }
}

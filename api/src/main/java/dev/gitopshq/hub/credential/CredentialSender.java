package dev.gitopshq.hub.credential;

import dev.gitopshq.activities.credential.AssignmentRow;
import dev.gitopshq.activities.credential.CredentialMapper;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.agent.v1.AssignedCredential;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.PruneCredentials;
import dev.gitopshq.hub.gateway.AgentGateway;
import dev.gitopshq.workflows.credential.CredentialSendActivities;
import dev.gitopshq.workflows.credential.SyncSent;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * The steps of a credential sync on the replica that holds the agent's stream ({@link
 * CredentialSendActivities}): the {@link PruneCredentials} list naming exactly the targets the
 * round's policy decision allowed, so the agent removes what is no longer assigned or no longer
 * allowed, sent down the stream directly (it carries names, no value). The credentials themselves
 * go as {@code credential_sync} jobs of the agent-job outbox ({@link CredentialSyncJobs}): parked
 * by the workflow's send activity ({@link CredentialJobParker}), or here by the send of runs that
 * began before the outbox carried them. The agent's prune answers reach {@link CredentialDelivery}.
 */
@Component
public class CredentialSender implements CredentialSendActivities {
  static final String NO_CAPABILITY =
      "the cluster's agent did not announce the credential.sync capability";

  private final AgentGateway gateway;
  private final CredentialMapper credentials;
  private final AgentJobMapper jobs;
  private final Clock clock;

  public CredentialSender(
      AgentGateway gateway, CredentialMapper credentials, AgentJobMapper jobs, Clock clock) {
    this.gateway = gateway;
    this.credentials = credentials;
    this.jobs = jobs;
    this.clock = clock;
  }

  /** The round's allowed targets by credential, or null when the agent lacks the capability. */
  private Map<UUID, List<String>> allowed(UUID org, UUID cluster, UUID decision) {
    Set<String> caps =
        gateway
            .heldCapabilities(org, cluster)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "this hub replica holds no stream of cluster " + cluster + "; retried"));
    List<AssignmentRow> rows =
        credentials.onCluster(org, cluster).stream()
            .filter(a -> decision.equals(a.decisionId()) && !a.policyDenied())
            .toList();
    if (!caps.contains(Capabilities.CREDENTIAL_SYNC)) {
      if (!rows.isEmpty()) {
        credentials.failDecision(org, cluster, decision, NO_CAPABILITY, clock.instant());
      }
      return null;
    }
    Map<UUID, List<String>> namespaces = new LinkedHashMap<>();
    for (AssignmentRow a : rows) {
      namespaces.computeIfAbsent(a.credentialId(), k -> new ArrayList<>()).add(a.namespace());
    }
    return namespaces;
  }

  @Override
  public SyncSent sync(String orgId, String clusterId, String syncId) {
    UUID org = UUID.fromString(orgId);
    UUID cluster = UUID.fromString(clusterId);
    UUID decision = UUID.fromString(syncId);
    Map<UUID, List<String>> allowed = allowed(org, cluster, decision);
    if (allowed == null) {
      return new SyncSent(0, 0, NO_CAPABILITY);
    }
    Instant now = clock.instant();
    credentials.pendingForDecision(org, cluster, decision, now);
    // Jobs nobody waits on: their answers set the targets' status (the run's send completes now).
    for (UUID credential : allowed.keySet()) {
      jobs.parkRequest(
          UUID.randomUUID(),
          org,
          cluster,
          AgentJob.KIND_CREDENTIAL_SYNC,
          CredentialSyncJobs.requestId(syncId, credential),
          null,
          now.plus(CredentialJobParker.DEADLINE),
          now);
    }
    gateway.commandQueued(org, cluster);
    sendPrune(org, cluster, syncId, allowed);
    return new SyncSent(allowed.size(), 0, "");
  }

  @Override
  public SyncSent prune(String orgId, String clusterId, String syncId) {
    UUID org = UUID.fromString(orgId);
    UUID cluster = UUID.fromString(clusterId);
    Map<UUID, List<String>> allowed = allowed(org, cluster, UUID.fromString(syncId));
    if (allowed == null) {
      return new SyncSent(0, 0, NO_CAPABILITY);
    }
    sendPrune(org, cluster, syncId, allowed);
    return new SyncSent(0, 0, "");
  }

  private void sendPrune(UUID org, UUID cluster, String syncId, Map<UUID, List<String>> allowed) {
    PruneCredentials.Builder keep = PruneCredentials.newBuilder().setRequestId(syncId);
    for (Map.Entry<UUID, List<String>> e : allowed.entrySet()) {
      credentials
          .find(org, e.getKey())
          .ifPresent(
              row ->
                  keep.addKeep(
                      AssignedCredential.newBuilder()
                          .setCredentialId(row.id().toString())
                          .setName(row.name())
                          .addAllNamespaces(e.getValue())));
    }
    HubMessage message =
        HubMessage.newBuilder()
            .setCorrelationId(keep.getRequestId())
            .setPruneCredentials(keep)
            .build();
    if (!gateway.send(org, cluster, message)) {
      throw new IllegalStateException(
          "the stream of cluster " + cluster + " closed during the sync; retried");
    }
  }
}

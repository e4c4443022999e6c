package dev.gitopshq.hub.credential;

import com.google.protobuf.ByteString;
import dev.gitopshq.activities.credential.AssignmentRow;
import dev.gitopshq.activities.credential.CredentialMapper;
import dev.gitopshq.activities.credential.CredentialRow;
import dev.gitopshq.activities.credential.CredentialVault;
import dev.gitopshq.agent.v1.AssignedCredential;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.PruneCredentials;
import dev.gitopshq.agent.v1.SyncCredential;
import dev.gitopshq.hub.gateway.AgentGateway;
import dev.gitopshq.workflows.credential.CredentialSendActivities;
import dev.gitopshq.workflows.credential.SyncSent;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Sends a cluster's credentials down its agent's stream, on the replica that holds it ({@link
 * CredentialSendActivities}): exactly the targets the round's policy decision allowed, each
 * credential loaded and opened here as a {@link SyncCredential} (the only place plaintext leaves
 * the database: inside the TLS stream; it is never logged, audited, returned or passed through
 * Temporal), then the full {@link PruneCredentials} so the agent removes what is no longer assigned
 * or no longer allowed. The agent's answers reach {@link CredentialDelivery}.
 *
 * <p>This is the one place a credential sync writes to a cluster; it becomes a job kind of the
 * agent-job outbox once that exists.
 */
@Component
public class CredentialSender implements CredentialSendActivities {
  private static final Logger log = LoggerFactory.getLogger(CredentialSender.class);
  static final String NO_CAPABILITY =
      "the cluster's agent did not announce the credential.sync capability";

  private final AgentGateway gateway;
  private final CredentialMapper credentials;
  private final CredentialVault vault;
  private final Clock clock;

  public CredentialSender(
      AgentGateway gateway, CredentialMapper credentials, CredentialVault vault, Clock clock) {
    this.gateway = gateway;
    this.credentials = credentials;
    this.vault = vault;
    this.clock = clock;
  }

  @Override
  public SyncSent sync(String orgId, String clusterId, String syncId) {
    UUID org = UUID.fromString(orgId);
    UUID cluster = UUID.fromString(clusterId);
    UUID decision = UUID.fromString(syncId);
    Set<String> caps =
        gateway
            .heldCapabilities(org, cluster)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "this hub replica holds no stream of cluster " + clusterId + "; retried"));
    Instant now = clock.instant();
    List<AssignmentRow> rows =
        credentials.onCluster(org, cluster).stream()
            .filter(a -> decision.equals(a.decisionId()) && !a.policyDenied())
            .toList();
    if (!caps.contains(Capabilities.CREDENTIAL_SYNC)) {
      if (!rows.isEmpty()) {
        credentials.failDecision(org, cluster, decision, NO_CAPABILITY, now);
      }
      return new SyncSent(0, 0, NO_CAPABILITY);
    }
    credentials.pendingForDecision(org, cluster, decision, now);
    Map<UUID, List<String>> namespaces = new LinkedHashMap<>();
    for (AssignmentRow a : rows) {
      namespaces.computeIfAbsent(a.credentialId(), k -> new ArrayList<>()).add(a.namespace());
    }
    PruneCredentials.Builder keep = PruneCredentials.newBuilder().setRequestId(syncId);
    int sent = 0;
    int failed = 0;
    for (Map.Entry<UUID, List<String>> e : namespaces.entrySet()) {
      CredentialRow row = credentials.find(org, e.getKey()).orElse(null);
      if (row == null) {
        continue;
      }
      keep.addKeep(
          AssignedCredential.newBuilder()
              .setCredentialId(row.id().toString())
              .setName(row.name())
              .addAllNamespaces(e.getValue()));
      SyncCredential.Builder sync =
          SyncCredential.newBuilder()
              .setRequestId(requestId(syncId, row.id()))
              .setCredentialId(row.id().toString())
              .setName(row.name())
              .setType(row.type())
              .setVersion(row.version())
              .addAllNamespaces(e.getValue());
      try {
        vault.open(row).forEach((k, v) -> sync.putData(k, ByteString.copyFrom(v)));
      } catch (RuntimeException ex) {
        // A row that does not open (another key, copied, tampered) is never sent.
        for (String ns : e.getValue()) {
          credentials.report(
              org,
              row.id(),
              cluster,
              ns,
              row.version(),
              "failed",
              "the hub cannot decrypt this credential (wrong encryption key or altered row)",
              now);
        }
        log.warn("credential {} does not decrypt; not sent to cluster {}", row.id(), clusterId);
        failed++;
        continue;
      }
      send(
          org,
          cluster,
          HubMessage.newBuilder()
              .setCorrelationId(sync.getRequestId())
              .setSyncCredential(sync)
              .build());
      sent++;
      log.info(
          "credential {} (version {}) sent to cluster {} for {} namespace(s)",
          row.id(),
          row.version(),
          clusterId,
          e.getValue().size());
    }
    send(
        org,
        cluster,
        HubMessage.newBuilder()
            .setCorrelationId(keep.getRequestId())
            .setPruneCredentials(keep)
            .build());
    return new SyncSent(sent, failed, "");
  }

  private void send(UUID org, UUID cluster, HubMessage message) {
    if (!gateway.send(org, cluster, message)) {
      throw new IllegalStateException(
          "the stream of cluster " + cluster + " closed during the sync; retried");
    }
  }

  /** The same for every attempt of a round: the round's key and the credential. */
  static String requestId(String syncId, UUID credentialId) {
    return UUID.nameUUIDFromBytes((syncId + ":" + credentialId).getBytes(StandardCharsets.UTF_8))
        .toString();
  }
}

package dev.gitopshq.hub.credential;

import com.google.protobuf.ByteString;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.credential.AssignmentRow;
import dev.gitopshq.activities.credential.CredentialMapper;
import dev.gitopshq.activities.credential.CredentialRow;
import dev.gitopshq.activities.credential.CredentialVault;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AssignedCredential;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.CredentialSyncResult;
import dev.gitopshq.agent.v1.CredentialsPruned;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.NamespaceSync;
import dev.gitopshq.agent.v1.PruneCredentials;
import dev.gitopshq.agent.v1.RemovedSecret;
import dev.gitopshq.agent.v1.SyncCredential;
import dev.gitopshq.hub.gateway.AgentGateway;
import dev.gitopshq.hub.gateway.AgentStreamListener;
import dev.gitopshq.hub.gateway.LogSafe;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Delivers credentials to agents, on the replica that holds the cluster's stream: when the agent is
 * welcomed, and when a notification says a credential was assigned, unassigned, changed or deleted.
 * A re-sync marks every target of the cluster pending, loads and opens each assigned credential and
 * sends it as a {@link SyncCredential} (the only place plaintext leaves the database: inside the
 * TLS stream; it is never logged, audited or passed through Temporal), then sends the full {@link
 * PruneCredentials} so the agent removes what is no longer assigned. The agent's answers set each
 * namespace synced or failed.
 */
@Component
public class CredentialDelivery implements AgentStreamListener {
  private static final Logger log = LoggerFactory.getLogger(CredentialDelivery.class);
  static final String NO_CAPABILITY =
      "the cluster's agent did not announce the credential.sync capability";
  private static final int MAX_ERROR = 1_000;

  private final AgentGateway gateway;
  private final CredentialMapper credentials;
  private final CredentialVault vault;
  private final AuditLog audit;
  private final Clock clock;
  private final TransactionTemplate tx;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "credential-delivery");
            t.setDaemon(true);
            return t;
          });

  public CredentialDelivery(
      AgentGateway gateway,
      CredentialMapper credentials,
      CredentialVault vault,
      AuditLog audit,
      Clock clock,
      TransactionTemplate tx) {
    this.tx = tx;
    this.gateway = gateway;
    this.credentials = credentials;
    this.vault = vault;
    this.audit = audit;
    this.clock = clock;
  }

  /** How long a target may stay pending before the sweep sends the cluster's credentials again. */
  static final Duration RESEND_AFTER = Duration.ofSeconds(60);

  private final ScheduledExecutorService sweeper =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "credential-sweep");
            t.setDaemon(true);
            return t;
          });

  @PostConstruct
  void register() {
    gateway.addListener(this);
    sweeper.scheduleWithFixedDelay(this::sweep, 30, 30, TimeUnit.SECONDS);
  }

  @PreDestroy
  void stop() {
    sweeper.shutdownNow();
    worker.shutdownNow();
  }

  /**
   * Re-syncs clusters held here whose targets stayed pending (a message or answer was lost). Runs
   * every 30 seconds; public for tests.
   */
  public void sweep() {
    try {
      for (var ref : credentials.stalePending(clock.instant().minus(RESEND_AFTER))) {
        UUID org = ref.orgId();
        UUID cluster = ref.clusterId();
        if (gateway.heldCapabilities(org, cluster).isPresent()) {
          later(org, cluster);
        }
      }
    } catch (RuntimeException e) {
      log.warn("credential sweep failed: {}", e.toString());
    }
  }

  @Override
  public void welcomed(UUID orgId, UUID clusterId, Set<String> capabilities) {
    later(orgId, clusterId);
  }

  @Override
  public void notified(String kind, UUID orgId, UUID clusterId) {
    later(orgId, clusterId);
  }

  @Override
  public boolean accepts(AgentMessage.PayloadCase payload) {
    return payload == AgentMessage.PayloadCase.CREDENTIAL_SYNC_RESULT
        || payload == AgentMessage.PayloadCase.CREDENTIALS_PRUNED;
  }

  @Override
  public void message(UUID orgId, UUID clusterId, AgentMessage message) {
    if (!gateway
        .heldCapabilities(orgId, clusterId)
        .map(c -> c.contains(Capabilities.CREDENTIAL_SYNC))
        .orElse(false)) {
      // Answers count only from an agent that announced the capability (the hub asked nothing).
      log.warn("cluster {} sent credential results without credential.sync; ignored", clusterId);
      return;
    }
    if (message.hasCredentialSyncResult()) {
      onResult(orgId, clusterId, message.getCredentialSyncResult());
    } else if (message.hasCredentialsPruned()) {
      onPruned(orgId, clusterId, message.getCredentialsPruned());
    }
  }

  private void later(UUID orgId, UUID clusterId) {
    try {
      worker.execute(
          () -> {
            try {
              resync(orgId, clusterId);
            } catch (RuntimeException e) {
              log.warn("credential sync of cluster {} failed: {}", clusterId, e.toString());
            }
          });
    } catch (RejectedExecutionException e) {
      // Shutting down; the agent re-syncs on its next hello.
    }
  }

  /** Sends every credential assigned to the cluster, then the prune list. */
  void resync(UUID orgId, UUID clusterId) {
    var caps = gateway.heldCapabilities(orgId, clusterId);
    if (caps.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    List<AssignmentRow> rows = credentials.onCluster(orgId, clusterId);
    if (!caps.get().contains(Capabilities.CREDENTIAL_SYNC)) {
      if (!rows.isEmpty()) {
        credentials.failCluster(orgId, clusterId, NO_CAPABILITY, now);
      }
      return;
    }
    credentials.pendingForCluster(orgId, clusterId, now);
    Map<UUID, List<String>> namespaces = new LinkedHashMap<>();
    for (AssignmentRow a : rows) {
      namespaces.computeIfAbsent(a.credentialId(), k -> new ArrayList<>()).add(a.namespace());
    }
    PruneCredentials.Builder keep =
        PruneCredentials.newBuilder().setRequestId(UUID.randomUUID().toString());
    for (Map.Entry<UUID, List<String>> e : namespaces.entrySet()) {
      CredentialRow row = credentials.find(orgId, e.getKey()).orElse(null);
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
              .setRequestId(UUID.randomUUID().toString())
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
              orgId,
              row.id(),
              clusterId,
              ns,
              row.version(),
              "failed",
              "the hub cannot decrypt this credential (wrong encryption key or altered row)",
              now);
        }
        log.warn("credential {} does not decrypt; not sent to cluster {}", row.id(), clusterId);
        continue;
      }
      gateway.send(
          orgId,
          clusterId,
          HubMessage.newBuilder()
              .setCorrelationId(sync.getRequestId())
              .setSyncCredential(sync)
              .build());
      log.info(
          "credential {} (version {}) sent to cluster {} for {} namespace(s)",
          row.id(),
          row.version(),
          clusterId,
          e.getValue().size());
    }
    gateway.send(
        orgId,
        clusterId,
        HubMessage.newBuilder()
            .setCorrelationId(keep.getRequestId())
            .setPruneCredentials(keep)
            .build());
  }

  private void onResult(UUID orgId, UUID clusterId, CredentialSyncResult result) {
    UUID credentialId;
    try {
      credentialId = UUID.fromString(result.getCredentialId());
    } catch (IllegalArgumentException e) {
      return;
    }
    Instant now = clock.instant();
    int n = 0;
    for (NamespaceSync ns : result.getNamespacesList()) {
      if (++n > 200) {
        break;
      }
      String error = ns.getSynced() ? null : bounded(ns.getError());
      credentials.report(
          orgId,
          credentialId,
          clusterId,
          ns.getNamespace(),
          result.getVersion(),
          ns.getSynced() ? "synced" : "failed",
          error,
          now);
      if (!ns.getSynced()) {
        log.info(
            "credential {} not synced to cluster {} namespace {}: {}",
            credentialId,
            clusterId,
            LogSafe.text(ns.getNamespace()),
            LogSafe.text(error));
      }
    }
  }

  private void onPruned(UUID orgId, UUID clusterId, CredentialsPruned pruned) {
    if (!pruned.getError().isEmpty()) {
      log.warn(
          "cluster {} could not prune credentials: {}",
          clusterId,
          LogSafe.text(bounded(pruned.getError())));
    }
    for (RemovedSecret r : pruned.getRemovedList().stream().limit(500).toList()) {
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("clusterId", clusterId.toString());
      details.put("namespace", bounded(r.getNamespace()));
      details.put("secret", bounded(r.getName()));
      try {
        tx.executeWithoutResult(
            st ->
                audit.record(
                    orgId,
                    new Actor("agent", clusterId.toString(), "agent"),
                    "credential.removed",
                    "credential",
                    bounded(r.getCredentialId()),
                    details));
      } catch (RuntimeException e) {
        log.warn("could not audit a credential removal on cluster {}: {}", clusterId, e.toString());
      }
    }
  }

  private static String bounded(String s) {
    return s.length() <= MAX_ERROR ? s : s.substring(0, MAX_ERROR);
  }
}

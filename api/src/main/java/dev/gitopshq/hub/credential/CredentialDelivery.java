package dev.gitopshq.hub.credential;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.credential.CredentialMapper;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.CredentialsPruned;
import dev.gitopshq.agent.v1.RemovedSecret;
import dev.gitopshq.hub.gateway.AgentGateway;
import dev.gitopshq.hub.gateway.AgentStreamListener;
import dev.gitopshq.hub.gateway.LogSafe;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The agent's side of credential sync, on the replica that holds the cluster's stream: a welcomed
 * agent gets its cluster's {@code credential-sync-<cluster>} workflow started (which asks the
 * credentials policy, then sends each allowed credential as a {@link CredentialSyncJobs} job and
 * has {@link CredentialSender} send the prune list), and the agent's prune answers audit what it
 * removed. Its sync answers are the job kind's, registered here with the gateway: they set each
 * namespace synced or failed and complete the waiting send activity. Changes to credentials and
 * assignments start the workflow from {@link CredentialService}; the notifications the database
 * still sends for them are not needed here.
 */
@Component
public class CredentialDelivery implements AgentStreamListener {
  private static final Logger log = LoggerFactory.getLogger(CredentialDelivery.class);
  private static final int MAX_ERROR = 1_000;

  private final AgentGateway gateway;
  private final CredentialSyncJobs syncJobs;
  private final CredentialMapper credentials;
  private final CredentialSyncStarter starter;
  private final AuditLog audit;
  private final Clock clock;
  private final TransactionTemplate tx;

  public CredentialDelivery(
      AgentGateway gateway,
      CredentialSyncJobs syncJobs,
      CredentialMapper credentials,
      CredentialSyncStarter starter,
      AuditLog audit,
      Clock clock,
      TransactionTemplate tx) {
    this.tx = tx;
    this.gateway = gateway;
    this.syncJobs = syncJobs;
    this.credentials = credentials;
    this.starter = starter;
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
    gateway.addJobKind(syncJobs);
    gateway.addListener(this);
    sweeper.scheduleWithFixedDelay(this::sweep, 30, 30, TimeUnit.SECONDS);
  }

  @PreDestroy
  void stop() {
    sweeper.shutdownNow();
  }

  /**
   * Syncs again the clusters held here whose targets stayed pending (a message or answer was lost,
   * or Temporal could not be reached when they changed). Runs every 30 seconds; public for tests.
   */
  public void sweep() {
    try {
      for (var ref : credentials.stalePending(clock.instant().minus(RESEND_AFTER))) {
        UUID org = ref.orgId();
        UUID cluster = ref.clusterId();
        if (gateway.heldCapabilities(org, cluster).isPresent()) {
          starter.sync(org, cluster, "targets stayed pending", CredentialSyncStarter.SYSTEM);
        }
      }
    } catch (RuntimeException e) {
      log.warn("credential sweep failed: {}", e.toString());
    }
  }

  @Override
  public void welcomed(UUID orgId, UUID clusterId, Set<String> capabilities) {
    // An agent with the capability gets at least the prune list (a credential deleted while it was
    // away); one without it only when targets must be marked failed.
    if (capabilities.contains(Capabilities.CREDENTIAL_SYNC)
        || !credentials.onCluster(orgId, clusterId).isEmpty()) {
      starter.sync(orgId, clusterId, "the agent connected", CredentialSyncStarter.SYSTEM);
    }
  }

  /**
   * Prune answers only: {@code CredentialSyncResult} is the answer of {@link CredentialSyncJobs}
   * jobs and goes to the job pipeline (also for runs that began before it, whose send parks the
   * same jobs).
   */
  @Override
  public boolean accepts(AgentMessage.PayloadCase payload) {
    return payload == AgentMessage.PayloadCase.CREDENTIALS_PRUNED;
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
    if (message.hasCredentialsPruned()) {
      onPruned(orgId, clusterId, message.getCredentialsPruned());
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

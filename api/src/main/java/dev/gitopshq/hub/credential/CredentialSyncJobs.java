package dev.gitopshq.hub.credential;

import com.google.protobuf.ByteString;
import dev.gitopshq.activities.credential.AssignmentRow;
import dev.gitopshq.activities.credential.CredentialMapper;
import dev.gitopshq.activities.credential.CredentialRow;
import dev.gitopshq.activities.credential.CredentialVault;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.CredentialSyncResult;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.NamespaceSync;
import dev.gitopshq.agent.v1.SyncCredential;
import dev.gitopshq.hub.gateway.JobKind;
import dev.gitopshq.hub.gateway.LogSafe;
import dev.gitopshq.workflows.credential.CredentialSynced;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Credential sync as a kind of the agent-job outbox ({@code credential_sync}): one job per
 * credential of a sync round, its reference the round's request id for the credential ({@link
 * #requestId}). The job row holds no value: the {@link SyncCredential} is built when a stream
 * carries the job, from the credential's sealed row (opened here, the only place plaintext leaves
 * the database: inside the TLS stream; never logged, stored in the job, or passed through
 * Temporal), for exactly the namespaces the round's policy decision allowed. A job whose round was
 * decided again since, or whose targets the policy now denies, is never sent. The agent's {@code
 * CredentialSyncResult} sets each namespace synced or failed and completes the waiting send
 * activity.
 */
@Component
public class CredentialSyncJobs implements JobKind<CredentialSynced> {
  private static final Logger log = LoggerFactory.getLogger(CredentialSyncJobs.class);
  private static final int MAX_ERROR = 1_000;
  private static final int MAX_NAMESPACES = 200;

  static final String SUPERSEDED =
      "a newer sync round decides this credential, or the policy denies all its targets now;"
          + " nothing was sent";
  static final String UNDECRYPTABLE =
      "the hub cannot decrypt this credential (wrong encryption key or altered row)";

  private final CredentialMapper credentials;
  private final CredentialVault vault;
  private final Clock clock;

  public CredentialSyncJobs(CredentialMapper credentials, CredentialVault vault, Clock clock) {
    this.credentials = credentials;
    this.vault = vault;
    this.clock = clock;
  }

  /** The same for every attempt of a round: the round's key and the credential. */
  public static String requestId(String syncId, UUID credentialId) {
    return UUID.nameUUIDFromBytes((syncId + ":" + credentialId).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  /** The credential a job sends, with the namespaces its round allowed. */
  record Target(UUID credentialId, UUID decisionId, List<String> namespaces) {}

  /**
   * The credential and round a job's reference names, read from the cluster's targets: the allowed
   * targets still stamped with the round whose request id the reference is. Empty when the round
   * was decided again since or the policy denies them all.
   */
  Optional<Target> target(AgentJob job) {
    UUID credential = null;
    UUID decision = null;
    List<String> namespaces = new ArrayList<>();
    for (AssignmentRow a : credentials.onCluster(job.orgId(), job.clusterId())) {
      if (a.decisionId() == null || a.policyDenied()) {
        continue;
      }
      if (credential == null) {
        if (!requestId(a.decisionId().toString(), a.credentialId()).equals(job.ref())) {
          continue;
        }
        credential = a.credentialId();
        decision = a.decisionId();
      }
      if (a.credentialId().equals(credential) && a.decisionId().equals(decision)) {
        namespaces.add(a.namespace());
      }
    }
    return credential == null
        ? Optional.empty()
        : Optional.of(new Target(credential, decision, namespaces));
  }

  @Override
  public String name() {
    return AgentJob.KIND_CREDENTIAL_SYNC;
  }

  @Override
  public AgentMessage.PayloadCase answer() {
    return AgentMessage.PayloadCase.CREDENTIAL_SYNC_RESULT;
  }

  @Override
  public String requires() {
    return Capabilities.CREDENTIAL_SYNC;
  }

  @Override
  public String ref(AgentMessage answer) {
    return answer.getCredentialSyncResult().getRequestId();
  }

  @Override
  public Class<CredentialSynced> resultType() {
    return CredentialSynced.class;
  }

  @Override
  public boolean expiresUnsent() {
    return true;
  }

  @Override
  public HubMessage.Builder message(AgentJob job) {
    Target t = target(job).orElseThrow(() -> new Refused(SUPERSEDED));
    CredentialRow row =
        credentials
            .find(job.orgId(), t.credentialId())
            .orElseThrow(() -> new Refused("the credential was deleted; nothing was sent"));
    SyncCredential.Builder sync =
        SyncCredential.newBuilder()
            .setRequestId(job.ref())
            .setCredentialId(row.id().toString())
            .setName(row.name())
            .setType(row.type())
            .setVersion(row.version())
            .addAllNamespaces(t.namespaces());
    try {
      vault.open(row).forEach((k, v) -> sync.putData(k, ByteString.copyFrom(v)));
    } catch (RuntimeException e) {
      // A row that does not open (another key, copied, tampered) is never sent.
      log.warn("credential {} does not decrypt; not sent to cluster {}", row.id(), job.clusterId());
      throw new Refused(UNDECRYPTABLE);
    }
    return HubMessage.newBuilder().setSyncCredential(sync);
  }

  @Override
  public void sent(AgentJob job, HubMessage message, UUID clusterId) {
    SyncCredential s = message.getSyncCredential();
    // Ids, versions and counts only: the message holds the value.
    log.info(
        "credential {} (version {}) sent to cluster {} for {} namespace(s) as job {}",
        s.getCredentialId(),
        s.getVersion(),
        clusterId,
        s.getNamespacesCount(),
        job.ref());
  }

  @Override
  public CredentialSynced answered(AgentJob job, AgentMessage answer) {
    CredentialSyncResult result = answer.getCredentialSyncResult();
    UUID credentialId;
    try {
      credentialId = UUID.fromString(result.getCredentialId());
    } catch (IllegalArgumentException e) {
      return new CredentialSynced("", 0, 0, 0, "the agent's answer names no credential");
    }
    Instant now = clock.instant();
    int synced = 0;
    int failed = 0;
    for (NamespaceSync ns : result.getNamespacesList()) {
      if (synced + failed >= MAX_NAMESPACES) {
        break;
      }
      String error = ns.getSynced() ? null : bounded(ns.getError());
      credentials.report(
          job.orgId(),
          credentialId,
          job.clusterId(),
          ns.getNamespace(),
          result.getVersion(),
          ns.getSynced() ? "synced" : "failed",
          error,
          now);
      if (ns.getSynced()) {
        synced++;
      } else {
        failed++;
        log.info(
            "credential {} not synced to cluster {} namespace {}: {}",
            credentialId,
            job.clusterId(),
            LogSafe.text(ns.getNamespace()),
            LogSafe.text(error));
      }
    }
    return new CredentialSynced(credentialId.toString(), result.getVersion(), synced, failed, "");
  }

  @Override
  public CredentialSynced unanswered(AgentJob job, String reason) {
    Optional<Target> t = target(job);
    t.ifPresent(
        target ->
            credentials.failCredentialDecision(
                job.orgId(),
                job.clusterId(),
                target.credentialId(),
                target.decisionId(),
                bounded(reason),
                clock.instant()));
    return new CredentialSynced(
        t.map(x -> x.credentialId().toString()).orElse(""), 0, 0, 0, reason);
  }

  @Override
  public String expired(AgentJob job, boolean held) {
    return held
        ? "the deadline passed before the agent could take the credential; it was not sent"
        : "the cluster's agent did not take the credential before its deadline; it was not sent";
  }

  private static String bounded(String s) {
    return s.length() <= MAX_ERROR ? s : s.substring(0, MAX_ERROR);
  }
}

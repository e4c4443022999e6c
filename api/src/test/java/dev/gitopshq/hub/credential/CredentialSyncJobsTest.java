package dev.gitopshq.hub.credential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.gitopshq.activities.credential.AssignmentRow;
import dev.gitopshq.activities.credential.CredentialMapper;
import dev.gitopshq.activities.credential.CredentialRow;
import dev.gitopshq.activities.credential.CredentialVault;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.CredentialSyncResult;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.NamespaceSync;
import dev.gitopshq.agent.v1.SyncCredential;
import dev.gitopshq.hub.gateway.JobKind;
import dev.gitopshq.workflows.credential.CredentialSynced;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The credential_sync job kind: what a job sends, to whom, and what its answer records. */
class CredentialSyncJobsTest {
  static final String CANARY = "canary-3b9e61f0";
  static final Instant NOW = Instant.parse("2026-11-28T01:00:00Z");

  final UUID org = UUID.randomUUID();
  final UUID cluster = UUID.randomUUID();
  final UUID credential = UUID.randomUUID();
  final UUID other = UUID.randomUUID();
  final UUID round = UUID.randomUUID();
  final CredentialMapper mapper = mock(CredentialMapper.class);
  final CredentialVault vault = new CredentialVault(new SecretBox(SecretBox.newKey()));
  final CredentialSyncJobs kind =
      new CredentialSyncJobs(mapper, vault, Clock.fixed(NOW, ZoneOffset.UTC));

  AssignmentRow target(UUID credentialId, String ns, UUID decision, boolean denied) {
    return new AssignmentRow(
        org,
        credentialId,
        cluster,
        ns,
        denied ? "failed" : "pending",
        null,
        null,
        denied ? "denied by policy: no" : null,
        NOW,
        NOW,
        "registry",
        "opaque",
        4,
        "prod",
        denied,
        decision);
  }

  CredentialRow row(byte[] sealed) {
    return new CredentialRow(
        credential,
        org,
        "registry",
        "opaque",
        "",
        sealed,
        CredentialVault.KEY_ID,
        4,
        List.of("token"),
        null,
        "me",
        NOW,
        NOW);
  }

  AgentJob job(String ref) {
    return new AgentJob(
        UUID.randomUUID(),
        org,
        cluster,
        AgentJob.KIND_CREDENTIAL_SYNC,
        ref,
        AgentJob.QUEUED,
        NOW.plusSeconds(120),
        null,
        0,
        NOW,
        null,
        null);
  }

  String ref() {
    return CredentialSyncJobs.requestId(round.toString(), credential);
  }

  void stored(byte[] sealed) {
    when(mapper.find(org, credential)).thenReturn(Optional.of(row(sealed)));
  }

  @Test
  void isTheCredentialSyncKindForAgentsWithTheCapabilityAndExpiresWhenNoStreamTakesIt() {
    assertThat(kind.name()).isEqualTo("credential_sync");
    assertThat(kind.answer()).isEqualTo(AgentMessage.PayloadCase.CREDENTIAL_SYNC_RESULT);
    assertThat(kind.requires()).isEqualTo(Capabilities.CREDENTIAL_SYNC);
    assertThat(kind.expiresUnsent()).isTrue();
    assertThat(kind.resultType()).isEqualTo(CredentialSynced.class);
    assertThat(
            kind.ref(
                AgentMessage.newBuilder()
                    .setCredentialSyncResult(CredentialSyncResult.newBuilder().setRequestId("r-1"))
                    .build()))
        .isEqualTo("r-1");
  }

  @Test
  void theReferenceIsTheSameForEveryRetryOfARoundAndDiffersByRoundAndCredential() {
    String r = CredentialSyncJobs.requestId(round.toString(), credential);
    assertThat(CredentialSyncJobs.requestId(round.toString(), credential)).isEqualTo(r);
    assertThat(CredentialSyncJobs.requestId(UUID.randomUUID().toString(), credential))
        .isNotEqualTo(r);
    assertThat(CredentialSyncJobs.requestId(round.toString(), other)).isNotEqualTo(r);
    assertThat(UUID.fromString(r)).isNotNull();
  }

  @Test
  void theMessageIsBuiltWhenSentWithTheOpenedValuesForExactlyTheNamespacesItsRoundAllowed() {
    stored(vault.seal(org, credential, Map.of("token", CANARY.getBytes(StandardCharsets.UTF_8))));
    when(mapper.onCluster(org, cluster))
        .thenReturn(
            List.of(
                target(other, "apps", round, false),
                target(credential, "apps", round, false),
                target(credential, "kube-system", round, true),
                target(credential, "web", round, false)));

    HubMessage.Builder message = kind.message(job(ref()));

    SyncCredential sync = message.getSyncCredential();
    assertThat(sync.getRequestId()).isEqualTo(ref());
    assertThat(sync.getCredentialId()).isEqualTo(credential.toString());
    assertThat(sync.getName()).isEqualTo("registry");
    assertThat(sync.getVersion()).isEqualTo(4);
    // The denied namespace is never sent.
    assertThat(sync.getNamespacesList()).containsExactly("apps", "web");
    assertThat(sync.getDataMap().get("token").toStringUtf8()).isEqualTo(CANARY);
  }

  @Test
  void aJobWhoseRoundWasDecidedAgainOrWhoseTargetsAreAllDeniedIsNotSentAndFailsNothing() {
    stored(vault.seal(org, credential, Map.of("token", CANARY.getBytes(StandardCharsets.UTF_8))));
    when(mapper.onCluster(org, cluster))
        .thenReturn(
            List.of(
                target(credential, "apps", UUID.randomUUID(), false),
                target(credential, "web", round, true)));

    assertThatThrownBy(() -> kind.message(job(ref())))
        .isInstanceOf(JobKind.Refused.class)
        .hasMessageContaining("a newer sync round");
    CredentialSynced answer = kind.unanswered(job(ref()), CredentialSyncJobs.SUPERSEDED);

    assertThat(answer.answered()).isFalse();
    assertThat(answer.error()).contains("nothing was sent");
    // The targets belong to the newer round, which reports them itself.
    verify(mapper, never()).failCredentialDecision(any(), any(), any(), any(), anyString(), any());
  }

  @Test
  void aCredentialThatDoesNotDecryptIsNotSentAndItsTargetsFailWithWhy() {
    // Sealed for another credential id: it does not open for this one.
    stored(vault.seal(org, other, Map.of("token", CANARY.getBytes(StandardCharsets.UTF_8))));
    when(mapper.onCluster(org, cluster))
        .thenReturn(List.of(target(credential, "apps", round, false)));

    assertThatThrownBy(() -> kind.message(job(ref())))
        .isInstanceOf(JobKind.Refused.class)
        .hasMessage(CredentialSyncJobs.UNDECRYPTABLE)
        .hasMessageNotContaining(CANARY);
    CredentialSynced answer = kind.unanswered(job(ref()), CredentialSyncJobs.UNDECRYPTABLE);

    assertThat(answer.credentialId()).isEqualTo(credential.toString());
    assertThat(answer.error()).contains("cannot decrypt");
    verify(mapper)
        .failCredentialDecision(
            org, cluster, credential, round, CredentialSyncJobs.UNDECRYPTABLE, NOW);
  }

  @Test
  void theAgentsAnswerSetsEachNamespaceAndCompletesWithCountsOnly() {
    AgentMessage answer =
        AgentMessage.newBuilder()
            .setCredentialSyncResult(
                CredentialSyncResult.newBuilder()
                    .setRequestId(ref())
                    .setCredentialId(credential.toString())
                    .setVersion(4)
                    .addNamespaces(NamespaceSync.newBuilder().setNamespace("apps").setSynced(true))
                    .addNamespaces(
                        NamespaceSync.newBuilder()
                            .setNamespace("web")
                            .setError("outside credentialSync.targets")))
            .build();

    CredentialSynced done = kind.answered(job(ref()), answer);

    assertThat(done).isEqualTo(new CredentialSynced(credential.toString(), 4, 1, 1, ""));
    assertThat(done.answered()).isTrue();
    verify(mapper).report(org, credential, cluster, "apps", 4, "synced", null, NOW);
    verify(mapper)
        .report(
            org, credential, cluster, "web", 4, "failed", "outside credentialSync.targets", NOW);
  }

  @Test
  void anAnswerNamingNoCredentialRecordsNothing() {
    AgentMessage answer =
        AgentMessage.newBuilder()
            .setCredentialSyncResult(
                CredentialSyncResult.newBuilder()
                    .setRequestId(ref())
                    .setCredentialId("not-a-uuid")
                    .addNamespaces(NamespaceSync.newBuilder().setNamespace("apps").setSynced(true)))
            .build();

    CredentialSynced done = kind.answered(job(ref()), answer);

    assertThat(done.answered()).isFalse();
    verify(mapper, never())
        .report(any(), any(), any(), anyString(), anyLong(), anyString(), any(), eq(NOW));
  }
}

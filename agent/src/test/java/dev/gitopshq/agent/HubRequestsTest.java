package dev.gitopshq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.identity.FileIdentityStore;
import dev.gitopshq.agent.logs.LogStreams;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ApplyFile;
import dev.gitopshq.agent.v1.ApplyRelease;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.agent.v1.CheckDrift;
import dev.gitopshq.agent.v1.CommandResult;
import dev.gitopshq.agent.v1.ExecuteCommand;
import dev.gitopshq.agent.v1.HeartbeatAck;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.ListApplications;
import dev.gitopshq.agent.v1.NamespaceSync;
import dev.gitopshq.agent.v1.PruneCredentials;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.RefreshInventory;
import dev.gitopshq.agent.v1.RequestReconcile;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.agent.v1.RotateToken;
import dev.gitopshq.agent.v1.SyncCredential;
import dev.gitopshq.agent.v1.Target;
import dev.gitopshq.agent.v1.WireAdapters;
import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's dispatch table and its job kinds, as the hub sees them: what each request is answered
 * with, under which correlation id, for an agent with and without the capability it needs.
 */
class HubRequestsTest {
  static final String OLD_TOKEN = "ghqa_" + "a".repeat(64);

  @TempDir Path dir;
  TestKube kube;
  FileIdentityStore store;
  HubRequests requests;
  final BlockingQueue<AgentMessage> sent = new LinkedBlockingQueue<>();

  @BeforeEach
  void start() {
    kube = TestKube.start().seedDemo();
    store = new FileIdentityStore(dir.resolve("agent.json"));
    store.save(new AgentIdentity("c-1", OLD_TOKEN, "hub:443", Instant.now()));
  }

  @AfterEach
  void stop() {
    if (requests != null) {
      requests.close();
    }
    kube.close();
  }

  HubRequests agentWith(String capabilities) {
    AgentConfig config =
        AgentConfig.fromEnv(
            Map.of(AgentConfig.HUB_ADDRESS, "127.0.0.1:1", AgentConfig.CAPABILITIES, capabilities));
    requests =
        new HubRequests(
            config,
            DirectDeployConfig.defaults(),
            kube::client,
            new LogStreams.Outbound() {
              @Override
              public boolean send(AgentMessage message) {
                return sent.add(message);
              }

              @Override
              public boolean writable() {
                return true;
              }
            },
            new TokenRotation(new IdentityKeeper(store, Duration.ZERO), Clock.systemUTC(), i -> {}),
            null,
            Clock.systemUTC());
    return requests;
  }

  AgentMessage next() throws InterruptedException {
    AgentMessage m = sent.poll(10, TimeUnit.SECONDS);
    assertThat(m).as("an answer").isNotNull();
    return m;
  }

  static HubMessage scale(String id, int replicas, Instant deadline) {
    return HubMessage.newBuilder()
        .setExecuteCommand(
            ExecuteCommand.newBuilder()
                .setCommandId(id)
                .setType("scale")
                .setTarget(
                    Target.newBuilder().setNamespace("demo").setKind("Deployment").setName("web"))
                .putParams("replicas", String.valueOf(replicas))
                .setRequestedBy("alice@example.com")
                .setDeadline(Timestamp.newBuilder().setSeconds(deadline.getEpochSecond())))
        .build();
  }

  static HubMessage apply(String id, Instant deadline) {
    return HubMessage.newBuilder()
        .setApplyRelease(
            ApplyRelease.newBuilder()
                .setApplyId(id)
                .setProject("shop")
                .setEnvironment("dev")
                .setDeadline(Timestamp.newBuilder().setSeconds(deadline.getEpochSecond()))
                .addFiles(
                    ApplyFile.newBuilder()
                        .setPath("acme/web/configmap-web.yaml")
                        .setContent(
                            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n"
                                + "  namespace: demo\n")))
        .build();
  }

  Deployment web() {
    return kube.client().apps().deployments().inNamespace("demo").withName("web").get();
  }

  @Test
  void aCommandRunsOnceAndARepeatIsAnsweredWithTheFirstResult() throws Exception {
    agentWith("observe,kubernetes.scale");
    String id = UUID.randomUUID().toString();
    requests.onHubMessage(scale(id, 5, Instant.now().plusSeconds(60)));
    AgentMessage first = next();
    String version = web().getMetadata().getResourceVersion();
    requests.onHubMessage(scale(id, 5, Instant.now().plusSeconds(60)));
    AgentMessage again = next();

    assertThat(first.getCorrelationId()).isEqualTo(id);
    assertThat(first.getCommandResult().getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(first.getCommandResult().getOutput())
        .isEqualTo("deployment.apps/web scaled from 2 to 5");
    assertThat(again).isEqualTo(first);
    assertThat(web().getMetadata().getResourceVersion()).as("not written again").isEqualTo(version);
    assertThat(requests.commandsExecuted()).isEqualTo(1);
  }

  @Test
  void aCommandPastItsDeadlineIsNotRun() throws Exception {
    agentWith("observe,kubernetes.scale");
    requests.onHubMessage(scale("late", 9, Instant.now().minusSeconds(1)));
    CommandResult r = next().getCommandResult();

    assertThat(r.getOutcome()).isEqualTo(CommandResult.Outcome.EXPIRED);
    assertThat(r.getError()).isEqualTo("the command's deadline had passed; it was not run");
    assertThat(web().getSpec().getReplicas()).isEqualTo(2);
    assertThat(requests.commandsExecuted()).isZero();
  }

  @Test
  void aCommandWithoutItsCapabilityOrOfAnUnknownTypeIsRefused() throws Exception {
    agentWith("observe");
    requests.onHubMessage(scale("no-scale", 9, Instant.now().plusSeconds(60)));
    AgentMessage refused = next();
    HubMessage unknown = scale("unknown", 9, Instant.now().plusSeconds(60));
    requests.onHubMessage(
        unknown.toBuilder()
            .setExecuteCommand(unknown.getExecuteCommand().toBuilder().setType("explode"))
            .build());
    CommandResult unknownType = next().getCommandResult();

    assertThat(refused.getCorrelationId()).isEqualTo("no-scale");
    assertThat(refused.getCommandResult().getOutcome()).isEqualTo(CommandResult.Outcome.REFUSED);
    assertThat(refused.getCommandResult().getError())
        .isEqualTo("this agent does not have the kubernetes.scale capability");
    assertThat(unknownType.getOutcome()).isEqualTo(CommandResult.Outcome.REFUSED);
    assertThat(unknownType.getError()).isEqualTo("unknown command type 'explode'");
    assertThat(web().getSpec().getReplicas()).isEqualTo(2);
    assertThat(requests.commandsExecuted()).isZero();
  }

  @Test
  void aDirectApplyRunsOnceAndARepeatIsAnsweredWithTheFirstResult() throws Exception {
    agentWith("direct.deploy");
    requests.onHubMessage(apply("dep-1:dev:c1", Instant.now().plusSeconds(60)));
    AgentMessage first = next();
    requests.onHubMessage(apply("dep-1:dev:c1", Instant.now().plusSeconds(60)));
    AgentMessage again = next();
    requests.onHubMessage(apply("dep-2:dev:c1", Instant.now().plusSeconds(60)));
    AgentMessage other = next();

    assertThat(first.getCorrelationId()).isEqualTo("dep-1:dev:c1");
    assertThat(first.getApplyResult().getOutcome()).isEqualTo(ApplyResult.Outcome.SUCCEEDED);
    assertThat(again).isEqualTo(first);
    assertThat(other.getCorrelationId()).isEqualTo("dep-2:dev:c1");
    assertThat(requests.directAppliesExecuted()).isEqualTo(2);
    assertThat(kube.client().configMaps().inNamespace("demo").withName("web").get()).isNotNull();
  }

  @Test
  void withoutDirectDeployOrPastItsDeadlineNothingIsApplied() throws Exception {
    agentWith("observe");
    requests.onHubMessage(apply("dep-1:dev:c1", Instant.now().plusSeconds(60)));
    ApplyResult refused = next().getApplyResult();
    requests.close();
    agentWith("direct.deploy");
    requests.onHubMessage(apply("dep-1:dev:c1", Instant.now().minusSeconds(1)));
    ApplyResult expired = next().getApplyResult();

    assertThat(refused.getOutcome()).isEqualTo(ApplyResult.Outcome.REFUSED);
    assertThat(refused.getError())
        .isEqualTo("this agent does not have the direct.deploy capability");
    assertThat(expired.getOutcome()).isEqualTo(ApplyResult.Outcome.EXPIRED);
    assertThat(expired.getError())
        .isEqualTo("the apply's deadline had passed; nothing was applied");
    assertThat(requests.directAppliesExecuted()).isZero();
    assertThat(kube.client().configMaps().inNamespace("demo").withName("web").get()).isNull();
  }

  @Test
  void aCredentialSyncSentAgainAfterAReconnectIsWrittenOnceAndAnsweredWithTheFirstResult()
      throws Exception {
    agentWith("observe,credential.sync");
    HubMessage sync =
        HubMessage.newBuilder()
            .setCorrelationId("req-1")
            .setSyncCredential(
                SyncCredential.newBuilder()
                    .setRequestId("req-1")
                    .setCredentialId("cred-1")
                    .setName("api-key")
                    .setType("opaque")
                    .setVersion(2)
                    .addNamespaces("demo")
                    .putData("token", ByteString.copyFromUtf8("s3cret")))
            .build();
    requests.onHubMessage(sync);
    AgentMessage first = next();
    String version =
        kube.client()
            .secrets()
            .inNamespace("demo")
            .withName("api-key")
            .get()
            .getMetadata()
            .getResourceVersion();
    // The hub's job pipeline sends a job again after the agent's Hello.
    requests.onHubMessage(sync);
    AgentMessage again = next();

    assertThat(first.getCorrelationId()).isEqualTo("req-1");
    assertThat(first.getCredentialSyncResult().getRequestId()).isEqualTo("req-1");
    assertThat(first.getCredentialSyncResult().getNamespacesList())
        .extracting(NamespaceSync::getNamespace, NamespaceSync::getSynced)
        .containsExactly(tuple("demo", true));
    assertThat(again).isEqualTo(first);
    assertThat(first.toString()).doesNotContain("s3cret");
    assertThat(
            kube.client()
                .secrets()
                .inNamespace("demo")
                .withName("api-key")
                .get()
                .getMetadata()
                .getResourceVersion())
        .as("not written again")
        .isEqualTo(version);
    assertThat(requests.credentialSyncsExecuted()).isEqualTo(1);
  }

  @Test
  void anAgentWithOnlyObserveRefusesCredentialsAdaptersAndTokenRotationsAsBefore()
      throws Exception {
    agentWith("observe");
    requests.onHubMessage(
        HubMessage.newBuilder()
            .setSyncCredential(
                SyncCredential.newBuilder()
                    .setRequestId("sync-1")
                    .setCredentialId("cred-1")
                    .setVersion(3)
                    .addNamespaces("apps")
                    .addNamespaces("web"))
            .build());
    AgentMessage sync = next();
    requests.onHubMessage(
        HubMessage.newBuilder()
            .setPruneCredentials(PruneCredentials.newBuilder().setRequestId("prune-1"))
            .build());
    AgentMessage prune = next();
    requests.onHubMessage(
        HubMessage.newBuilder()
            .setWireAdapters(WireAdapters.newBuilder().setRequestId("wire-1"))
            .build());
    AgentMessage wire = next();
    requests.onHubMessage(
        HubMessage.newBuilder()
            .setRequestReconcile(RequestReconcile.newBuilder().setRequestId("rec-1"))
            .build());
    AgentMessage reconcile = next();
    requests.onHubMessage(
        HubMessage.newBuilder()
            .setRotateToken(
                RotateToken.newBuilder()
                    .setRotationId("rot-1")
                    .setAgentToken("ghqa_" + "b".repeat(64)))
            .build());
    AgentMessage rotation = next();

    assertThat(sync.getCorrelationId()).isEqualTo("sync-1");
    assertThat(sync.getCredentialSyncResult().getVersion()).isEqualTo(3);
    assertThat(sync.getCredentialSyncResult().getNamespacesList())
        .extracting(NamespaceSync::getNamespace, NamespaceSync::getSynced, NamespaceSync::getError)
        .containsExactly(
            tuple("apps", false, "the credential.sync capability is off on this agent"),
            tuple("web", false, "the credential.sync capability is off on this agent"));
    assertThat(prune.getCorrelationId()).isEqualTo("prune-1");
    assertThat(prune.getCredentialsPruned().getError())
        .isEqualTo("the credential.sync capability is off on this agent");
    assertThat(wire.getCorrelationId()).isEqualTo("wire-1");
    assertThat(wire.getAdaptersWired().getRefused()).isTrue();
    assertThat(wire.getAdaptersWired().getError())
        .isEqualTo("the adapter.wire capability is off on this agent");
    assertThat(reconcile.getReconcileRequested().getError())
        .isEqualTo("the adapter.wire capability is off on this agent");
    assertThat(rotation.getCorrelationId()).isEqualTo("rot-1");
    assertThat(rotation.getTokenRotated().getPersisted()).isFalse();
    assertThat(rotation.getTokenRotated().getError())
        .isEqualTo("the token.rotate capability is off on this agent");
    assertThat(store.load().orElseThrow().agentToken()).isEqualTo(OLD_TOKEN);
  }

  @Test
  void anAgentWithoutObserveRefusesLiveReadsAndDriftChecksAsBefore() throws Exception {
    agentWith("kubernetes.scale");
    requests.onHubMessage(
        HubMessage.newBuilder()
            .setReadResource(
                ReadResource.newBuilder()
                    .setRequestId("read-1")
                    .setVersion("v1")
                    .setKind("ConfigMap")
                    .setNamespace("demo")
                    .setName("web"))
            .build());
    AgentMessage read = next();
    requests.onHubMessage(
        HubMessage.newBuilder()
            .setListApplications(ListApplications.newBuilder().setRequestId("list-1"))
            .build());
    AgentMessage list = next();
    requests.onHubMessage(
        HubMessage.newBuilder()
            .setCheckDrift(CheckDrift.newBuilder().setCheckId("drift-1"))
            .build());
    AgentMessage drift = next();

    assertThat(read.getCorrelationId()).isEqualTo("read-1");
    assertThat(read.getResourceDetail().getOutcome()).isEqualTo(ResourceDetail.Outcome.FORBIDDEN);
    assertThat(read.getResourceDetail().getError())
        .isEqualTo("the observe capability is off on this agent");
    assertThat(list.getArgoApplications().getForbidden()).isTrue();
    assertThat(list.getArgoApplications().getError())
        .isEqualTo("the argocd.read and observe capabilities are off on this agent");
    assertThat(drift.getCorrelationId()).isEqualTo("drift-1");
    assertThat(drift.getDriftReport().getError())
        .isEqualTo("the observe capability is off on this agent");
  }

  @Test
  void aTokenRotationIsPersistedAndAcknowledgedWithTheCapability() throws Exception {
    agentWith("observe,token.rotate");
    String next = "ghqa_" + "b".repeat(64);
    requests.onHubMessage(
        HubMessage.newBuilder()
            .setRotateToken(RotateToken.newBuilder().setRotationId("rot-2").setAgentToken(next))
            .build());
    AgentMessage answer = next();

    assertThat(answer.getCorrelationId()).isEqualTo("rot-2");
    assertThat(answer.getTokenRotated().getPersisted()).isTrue();
    assertThat(store.load().orElseThrow().agentToken()).isEqualTo(next);
  }

  @Test
  void messagesTheAgentDoesNotAnswerAreIgnored() throws Exception {
    agentWith("observe");
    requests.onHubMessage(
        HubMessage.newBuilder().setHeartbeatAck(HeartbeatAck.newBuilder().setSequence(1)).build());
    requests.onHubMessage(HubMessage.getDefaultInstance());
    // Without the inventory (this agent has none), a refresh is ignored too.
    requests.onHubMessage(
        HubMessage.newBuilder().setRefreshInventory(RefreshInventory.getDefaultInstance()).build());

    assertThat(sent.poll(300, TimeUnit.MILLISECONDS)).isNull();
  }
}

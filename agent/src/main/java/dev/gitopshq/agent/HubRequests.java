package dev.gitopshq.agent;

import dev.gitopshq.agent.adapters.AdapterWiring;
import dev.gitopshq.agent.adapters.ReconcileRequests;
import dev.gitopshq.agent.commands.CommandRunner;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.Capability;
import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.credentials.CredentialSync;
import dev.gitopshq.agent.deploy.DirectDeployer;
import dev.gitopshq.agent.drift.DriftChecker;
import dev.gitopshq.agent.inspect.ArgoApplicationsReader;
import dev.gitopshq.agent.inspect.Inspector;
import dev.gitopshq.agent.inventory.InventoryFeed;
import dev.gitopshq.agent.jobs.JobKind;
import dev.gitopshq.agent.jobs.JobRunner;
import dev.gitopshq.agent.jobs.Lane;
import dev.gitopshq.agent.kube.CredentialWriter;
import dev.gitopshq.agent.kube.KubeCommands;
import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.logs.LogStreams;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ApplyRelease;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.CheckDrift;
import dev.gitopshq.agent.v1.CommandResult;
import dev.gitopshq.agent.v1.CredentialSyncResult;
import dev.gitopshq.agent.v1.DriftReport;
import dev.gitopshq.agent.v1.ExecuteCommand;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.HubMessage.PayloadCase;
import dev.gitopshq.agent.v1.ListApplications;
import dev.gitopshq.agent.v1.PruneCredentials;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.ReconcileRequested;
import dev.gitopshq.agent.v1.RequestReconcile;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.agent.v1.RotateToken;
import dev.gitopshq.agent.v1.SyncCredential;
import dev.gitopshq.agent.v1.WireAdapters;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The agent's side of the hub's requests: one dispatch table from each {@link HubMessage} payload
 * to what handles it. Every request that the agent answers once (a command, a direct apply, a
 * credential sync or prune, adapter wiring, a reconcile request, a drift check, a live read, a
 * token rotation) is a {@link JobKind} of the one {@link JobRunner}, declared below with its lane,
 * its capability, its deadline and its memory; log sessions go to {@link LogStreams} and inventory
 * refreshes to the {@link InventoryFeed}. Anything else (Welcome and heartbeat answers are the
 * link's, a newer hub's messages) is ignored.
 */
final class HubRequests implements AutoCloseable {

  /** One command at a time, so two commands never race on one object. */
  static final Lane COMMANDS = Lane.serial("gitopshq-commands");

  static final Lane DIRECT_DEPLOY = Lane.serial("gitopshq-direct-deploy");

  /** Syncs and prunes one at a time, in the order they arrived. */
  static final Lane CREDENTIALS = Lane.serial("gitopshq-credential-sync");

  static final Lane ADAPTERS = Lane.serial("gitopshq-adapter-wiring");

  /** Persisting may call the Kubernetes API: never on the gRPC thread. */
  static final Lane TOKENS = Lane.serial("gitopshq-token-rotation");

  /** Two threads and a short queue: a burst of live reads is refused, never queued unbounded. */
  static final Lane LIVE_READS = Lane.bounded("gitopshq-inspect", 2, 16);

  /** One drift check at a time, and at most two waiting: more are answered "busy". */
  static final Lane DRIFT = Lane.bounded("gitopshq-drift", 1, 2);

  private static final String BUSY_READS = "the agent is busy with other inspections; try again";
  private static final String OBSERVE_OFF = "the observe capability is off on this agent";

  private final JobRunner jobs;
  private final LogStreams logStreams;
  private final Map<PayloadCase, Consumer<HubMessage>> table = new EnumMap<>(PayloadCase.class);
  private final List<JobKind<?, ?>> kinds = new ArrayList<>();
  private final JobKind<ExecuteCommand, CommandResult> commands;
  private final JobKind<ApplyRelease, ApplyResult> applies;
  private final JobKind<SyncCredential, CredentialSyncResult> syncs;

  /**
   * @param hub the Connect stream
   * @param inventory the inventory, or null without {@code observe}
   */
  HubRequests(
      AgentConfig config,
      DirectDeployConfig direct,
      Supplier<KubernetesClient> kube,
      LogStreams.Outbound hub,
      TokenRotation rotation,
      InventoryFeed inventory,
      Clock clock) {
    Set<Capability> capabilities = capabilities(config.capabilities());
    // Drift checks and resolve-drift use the direct-deploy field manager for objects no Argo CD
    // Application manages.
    DriftChecker drift = new DriftChecker(kube, direct.fieldManager(), clock);
    CommandRunner runner = new CommandRunner(new KubeCommands(kube), drift::apply, clock);
    commands =
        kind(
            JobKind.builder(
                    "command",
                    ExecuteCommand::getCommandId,
                    runner::run,
                    AgentMessage.Builder::setCommandResult)
                .lane(COMMANDS)
                .remembering(10_000)
                .requires(CommandRunner::needs, runner::refused)
                .deadline(
                    c -> JobKind.deadline(c.hasDeadline(), c.getDeadline()), runner::expired));
    DirectDeployer deployer = new DirectDeployer(direct, kube, clock);
    applies =
        kind(
            JobKind.builder(
                    "direct apply",
                    ApplyRelease::getApplyId,
                    deployer::apply,
                    AgentMessage.Builder::setApplyResult)
                .lane(DIRECT_DEPLOY)
                .remembering(1_000)
                .requires(needs(Capability.DIRECT_DEPLOY), (r, needed) -> deployer.refused(r))
                .deadline(
                    r -> JobKind.deadline(r.hasDeadline(), r.getDeadline()), deployer::expired));
    CredentialSync credentials =
        new CredentialSync(config.credentialSyncTargets(), new CredentialWriter(kube));
    // A credential_sync job of the hub's outbox: sent again after a reconnect, answered from
    // memory (its answer holds namespaces and errors, never the value), so it is written once.
    syncs =
        kind(
            JobKind.builder(
                    "credential sync",
                    SyncCredential::getRequestId,
                    credentials::sync,
                    AgentMessage.Builder::setCredentialSyncResult)
                .lane(CREDENTIALS)
                .remembering(1_000)
                .requires(
                    needs(Capability.CREDENTIAL_SYNC), (s, needed) -> CredentialSync.refused(s)));
    JobKind<PruneCredentials, ?> prunes =
        kind(
            JobKind.builder(
                    "credential prune",
                    PruneCredentials::getRequestId,
                    credentials::prune,
                    AgentMessage.Builder::setCredentialsPruned)
                .lane(CREDENTIALS)
                .requires(
                    needs(Capability.CREDENTIAL_SYNC), (p, needed) -> CredentialSync.refused(p)));
    AdapterWiring wiring = new AdapterWiring(kube);
    JobKind<WireAdapters, ?> wirings =
        kind(
            JobKind.builder(
                    "adapter wiring",
                    WireAdapters::getRequestId,
                    wiring::wire,
                    AgentMessage.Builder::setAdaptersWired)
                .lane(ADAPTERS)
                .requires(needs(Capability.ADAPTER_WIRE), (w, needed) -> AdapterWiring.refused(w)));
    ReconcileRequests reconciles = new ReconcileRequests(kube, clock);
    JobKind<RequestReconcile, ?> reconcileRequests =
        kind(
            JobKind.builder(
                    "reconcile request",
                    RequestReconcile::getRequestId,
                    reconciles::request,
                    AgentMessage.Builder::setReconcileRequested)
                .lane(LIVE_READS)
                .requires(
                    needs(Capability.ADAPTER_WIRE), (r, needed) -> ReconcileRequests.refused(r))
                .busy(
                    r ->
                        ReconcileRequested.newBuilder()
                            .setRequestId(r.getRequestId())
                            .setError(BUSY_READS)
                            .build()));
    // The check's own deadline only ends the comparing: the objects left are reported as failed.
    JobKind<CheckDrift, ?> driftChecks =
        kind(
            JobKind.builder(
                    "drift check",
                    CheckDrift::getCheckId,
                    drift::check,
                    AgentMessage.Builder::setDriftReport)
                .lane(DRIFT)
                .requires(needs(Capability.OBSERVE), (c, needed) -> driftError(c, OBSERVE_OFF))
                .busy(c -> driftError(c, "the agent is busy with other drift checks; try again")));
    Inspector inspector =
        new Inspector(
            kube, config::diagnosticsAllowed, capabilities.contains(Capability.DIAGNOSTICS_READ));
    JobKind<ReadResource, ?> reads =
        kind(
            JobKind.builder(
                    "inspection",
                    ReadResource::getRequestId,
                    inspector::read,
                    AgentMessage.Builder::setResourceDetail)
                .lane(LIVE_READS)
                .requires(
                    needs(Capability.OBSERVE),
                    (r, needed) -> detail(r, ResourceDetail.Outcome.FORBIDDEN, OBSERVE_OFF))
                .busy(r -> detail(r, ResourceDetail.Outcome.FAILED, BUSY_READS))
                .failed(
                    (r, e) ->
                        detail(r, ResourceDetail.Outcome.FAILED, Redactor.redact(e.toString()))));
    ArgoApplicationsReader applications = new ArgoApplicationsReader(kube, config.argocdServer());
    boolean argo = capabilities.contains(Capability.ARGOCD_READ);
    boolean flux = capabilities.contains(Capability.OBSERVE);
    JobKind<ListApplications, ?> lists =
        kind(
            JobKind.builder(
                    "application list",
                    ListApplications::getRequestId,
                    (ListApplications l) -> applications.list(l, argo, flux),
                    AgentMessage.Builder::setArgoApplications)
                .lane(LIVE_READS)
                .requires(
                    l -> EnumSet.of(Capability.ARGOCD_READ, Capability.OBSERVE),
                    (l, needed) ->
                        ArgoApplications.newBuilder()
                            .setRequestId(l.getRequestId())
                            .setForbidden(true)
                            .setError(
                                "the argocd.read and observe capabilities are off on this agent")
                            .build())
                .busy(
                    l ->
                        ArgoApplications.newBuilder()
                            .setRequestId(l.getRequestId())
                            .setError(BUSY_READS)
                            .build()));
    JobKind<RotateToken, ?> rotations =
        kind(
            JobKind.builder(
                    "token rotation",
                    RotateToken::getRotationId,
                    rotation::handle,
                    AgentMessage.Builder::setTokenRotated)
                .lane(TOKENS)
                .requires(needs(Capability.TOKEN_ROTATE), (r, needed) -> TokenRotation.refused(r)));
    this.jobs = new JobRunner(capabilities, clock, hub::send, kinds);
    this.logStreams =
        new LogStreams(
            kube,
            config::diagnosticsAllowed,
            capabilities.contains(Capability.DIAGNOSTICS_READ),
            hub);

    // The dispatch table.
    job(PayloadCase.EXECUTE_COMMAND, commands, HubMessage::getExecuteCommand);
    job(PayloadCase.APPLY_RELEASE, applies, HubMessage::getApplyRelease);
    job(PayloadCase.SYNC_CREDENTIAL, syncs, HubMessage::getSyncCredential);
    job(PayloadCase.PRUNE_CREDENTIALS, prunes, HubMessage::getPruneCredentials);
    job(PayloadCase.WIRE_ADAPTERS, wirings, HubMessage::getWireAdapters);
    job(PayloadCase.REQUEST_RECONCILE, reconcileRequests, HubMessage::getRequestReconcile);
    job(PayloadCase.CHECK_DRIFT, driftChecks, HubMessage::getCheckDrift);
    job(PayloadCase.READ_RESOURCE, reads, HubMessage::getReadResource);
    job(PayloadCase.LIST_APPLICATIONS, lists, HubMessage::getListApplications);
    job(PayloadCase.ROTATE_TOKEN, rotations, HubMessage::getRotateToken);
    table.put(PayloadCase.OPEN_LOG_STREAM, m -> logStreams.open(m.getOpenLogStream()));
    table.put(PayloadCase.LOG_STREAM_CONTROL, m -> logStreams.control(m.getLogStreamControl()));
    if (inventory != null) {
      table.put(PayloadCase.REFRESH_INVENTORY, m -> inventory.snapshotDue());
    }
  }

  /** Hands a hub message other than Welcome to its handler; called on the gRPC thread. */
  void onHubMessage(HubMessage message) {
    Consumer<HubMessage> handler = table.get(message.getPayloadCase());
    if (handler != null) {
      handler.accept(message);
    }
  }

  /** How many commands reached the cluster (repeats, refusals and expiries excluded). */
  int commandsExecuted() {
    return jobs.started(commands);
  }

  /** How many log sessions the agent is reading now. */
  int openLogStreams() {
    return logStreams.size();
  }

  /** How many direct applies reached the cluster (repeats, refusals and expiries excluded). */
  int directAppliesExecuted() {
    return jobs.started(applies);
  }

  /** How many credential syncs reached the cluster (repeats and refusals excluded). */
  int credentialSyncsExecuted() {
    return jobs.started(syncs);
  }

  /** Ends the log sessions and stops the job runner's threads. */
  @Override
  public void close() {
    logStreams.close();
    jobs.close();
  }

  private <Q, A> JobKind<Q, A> kind(JobKind.Builder<Q, A> builder) {
    JobKind<Q, A> kind = builder.build();
    kinds.add(kind);
    return kind;
  }

  private <Q> void job(PayloadCase payload, JobKind<Q, ?> kind, Function<HubMessage, Q> request) {
    table.put(payload, m -> jobs.submit(kind, request.apply(m)));
  }

  private static <Q> Function<Q, Set<Capability>> needs(Capability capability) {
    Set<Capability> needed = Set.of(capability);
    return q -> needed;
  }

  private static DriftReport driftError(CheckDrift c, String error) {
    return DriftReport.newBuilder().setCheckId(c.getCheckId()).setError(error).build();
  }

  private static ResourceDetail detail(
      ReadResource r, ResourceDetail.Outcome outcome, String error) {
    return ResourceDetail.newBuilder()
        .setRequestId(r.getRequestId())
        .setOutcome(outcome)
        .setError(error)
        .build();
  }

  private static Set<Capability> capabilities(List<String> names) {
    EnumSet<Capability> set = EnumSet.noneOf(Capability.class);
    names.forEach(n -> Capability.fromSeedName(n).ifPresent(set::add));
    return set;
  }
}

package dev.gitopshq.activities.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyMapper;
import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyResolver;
import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyRow;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditMapper;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.activities.notify.NotificationSettingsMapper;
import dev.gitopshq.activities.notify.NotificationTargets;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.policy.FreezeService;
import dev.gitopshq.activities.policy.FreezeWindowMapper;
import dev.gitopshq.activities.policy.OpaClient;
import dev.gitopshq.activities.policy.OpaException;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.activities.policy.PolicyMapper;
import dev.gitopshq.activities.policy.PolicyRepository;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.activities.policy.PolicyText;
import dev.gitopshq.activities.store.TestSchema;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.workflows.command.CommandSpec;
import dev.gitopshq.workflows.command.CommandStatus;
import dev.gitopshq.workflows.command.CommandTarget;
import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.Requester;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The command workflow's activities on PostgreSQL and the real OPA with the shipped approval
 * policy: the decision an approver and an auditor later see (outcome, reasons, the policy's version
 * and text hash), what OPA is told, failing closed while OPA is down, capability checks, and a
 * timeline that a retried activity writes once.
 */
class CommandActivitiesIT {
  static TestSchema schema;
  static OpaTestServer opaServer;
  static OpaClient opa;
  static PolicyService policies;
  static String approvalRego;

  UUID org;
  UUID cluster;
  CommandMapper commands;
  CommandActivitiesImpl activities;

  @BeforeAll
  static void start() throws Exception {
    schema =
        TestSchema.create(
            "command_activities_it",
            CommandMapper.class,
            AgentJobMapper.class,
            ClusterMapper.class,
            ApprovalPolicyMapper.class,
            PolicyMapper.class,
            NotificationSettingsMapper.class,
            FreezeWindowMapper.class,
            AuditMapper.class);
    opaServer = OpaTestServer.startNew();
    opa = opaServer.client();
    Clock clock = Clock.systemUTC();
    policies =
        new PolicyService(
            opa,
            new PolicyRepository(schema.mapper(PolicyMapper.class)),
            new AuditLog(schema.mapper(AuditMapper.class), clock),
            new org.springframework.jdbc.datasource.DataSourceTransactionManager(
                schema.dataSource()),
            clock);
    approvalRego =
        Files.readString(
            OpaTestServer.repoRoot().resolve("policies/gitopshq/approval/decision.rego"));
  }

  @AfterAll
  static void stop() {
    if (opa != null) {
      opa.close();
    }
    if (opaServer != null) {
      opaServer.close();
    }
    if (schema != null) {
      schema.close();
    }
  }

  @BeforeEach
  void organization() throws Exception {
    org = schema.newOrg();
    cluster = schema.newCluster(org);
    policies.seedIfAbsent(org, CommandActivitiesImpl.APPROVAL_POLICY, approvalRego);
    policies.republish(org);
    commands = schema.mapper(CommandMapper.class);
    Clock clock = Clock.systemUTC();
    activities =
        new CommandActivitiesImpl(
            commands,
            schema.mapper(ClusterMapper.class),
            new ApprovalPolicyResolver(schema.mapper(ApprovalPolicyMapper.class)),
            policies,
            new FreezeService(
                opa,
                policies,
                schema.mapper(FreezeWindowMapper.class),
                new AuditLog(schema.mapper(AuditMapper.class), clock),
                new DataSourceTransactionManager(schema.dataSource()),
                clock),
            new WebhookNotifier(
                new NotificationTargets(
                    schema.mapper(NotificationSettingsMapper.class),
                    new SecretBox(SecretBox.newKey()),
                    Optional::empty,
                    null,
                    null,
                    o -> false,
                    clock),
                clock),
            new AuditLog(schema.mapper(AuditMapper.class), clock),
            schema.tx(),
            clock);
  }

  void clusterIs(String environment, String... capabilities) throws Exception {
    schema.exec(
        "update clusters set environment = ?, capabilities = ? where org_id = ? and id = ?",
        environment,
        capabilities,
        org,
        cluster);
  }

  static final Requester ANA =
      new Requester("m-ana", "member", "ana@example.com", "member", List.of(), List.of());

  CommandSpec command(String type, Requester requester, String breakGlass) {
    UUID id = UUID.randomUUID();
    Instant now = Instant.now();
    CommandSpec spec =
        new CommandSpec(
            org.toString(),
            id.toString(),
            cluster.toString(),
            "prod",
            type,
            new CommandTarget("shop", "Deployment", "web"),
            Map.of("replicas", "3"),
            "load test",
            requester,
            breakGlass);
    commands.insert(CommandRow.requested(spec, now));
    return spec;
  }

  long audited(String action, String target) throws Exception {
    return schema.count(
        "select count(*) from audit_log where org_id = ? and action = ? and target_id = ?",
        org,
        action,
        target);
  }

  @Test
  void aProductionScaleNeedsApprovalAndTheDecisionNamesThePolicyTextItCameFrom() throws Exception {
    clusterIs("production", Capabilities.KUBERNETES_SCALE);
    CommandSpec spec = command("scale", ANA, null);

    Decision decision = activities.decide(spec);

    assertThat(decision.outcome()).isEqualTo(Decision.REQUIRE_APPROVAL);
    assertThat(decision.policy()).isEqualTo("approval");
    assertThat(decision.policyVersion()).isEqualTo(1);
    assertThat(decision.requiredApprovers()).isEqualTo(1);
    assertThat(decision.approverRoles()).containsExactlyInAnyOrder("admin", "owner");
    assertThat(decision.reasons()).isNotEmpty();
    CommandRow row = commands.findById(org, UUID.fromString(spec.commandId())).orElseThrow();
    assertThat(row.policyName()).isEqualTo("approval");
    assertThat(row.policyVersion()).isEqualTo(1);
    assertThat(row.policySha256()).isEqualTo(PolicyText.sha256(approvalRego));
    assertThat(row.decisionOutcome()).isEqualTo(Decision.REQUIRE_APPROVAL);
    assertThat(row.decisionReasons()).isEqualTo(decision.reasons());
    assertThat(audited("command.decision", spec.commandId())).isEqualTo(1);
  }

  @Test
  void outsideProductionAScaleIsAutoApprovedUnlessTheClustersSettingsSayOtherwise()
      throws Exception {
    clusterIs("staging", Capabilities.KUBERNETES_SCALE);
    assertThat(activities.decide(command("scale", ANA, null)).outcome())
        .isEqualTo(Decision.AUTO_APPROVE);

    // An approval policy attached to the cluster by name ("prod", TestSchema's cluster).
    schema
        .mapper(ApprovalPolicyMapper.class)
        .insert(
            new ApprovalPolicyRow(
                UUID.randomUUID(),
                org,
                "cluster-prod",
                "",
                List.of("scale"),
                List.of(),
                2,
                List.of("owner"),
                List.of(),
                false,
                List.of(),
                List.of("prod"),
                null,
                "admin@example.com",
                Instant.now(),
                "admin@example.com",
                Instant.now()));
    Decision decision = activities.decide(command("scale", ANA, null));
    assertThat(decision.outcome()).isEqualTo(Decision.REQUIRE_APPROVAL);
    assertThat(decision.requiredApprovers()).isEqualTo(2);
    assertThat(decision.approverRoles()).containsExactly("owner");
  }

  @Test
  void theApprovalInputCarriesTheFreezeWindowsThatHoldTheCommand() throws Exception {
    clusterIs("production", Capabilities.KUBERNETES_SCALE);
    UUID production = UUID.randomUUID();
    schema.exec(
        "insert into environments (id, org_id, name, position, created_at)"
            + " values (?, ?, 'production', 1, now())",
        production,
        org);
    UUID holding = window(org, production, new String[] {"scale"}, "year-end freeze");
    window(org, production, new String[] {}, "deployments only");
    window(org, null, new String[] {"restart"}, "restarts only");
    UUID otherOrg = schema.newOrg();
    window(otherOrg, null, new String[] {"all"}, "another organization's");

    JsonNode freezes = activities.input(command("scale", ANA, null)).get("freezes");

    assertThat(freezes).hasSize(1);
    assertThat(freezes.get(0).get("id").asText()).isEqualTo(holding.toString());
    assertThat(freezes.get(0).get("environment").asText()).isEqualTo("production");
    assertThat(freezes.get(0).get("command_types").toString()).isEqualTo("[\"scale\"]");
    assertThat(freezes.get(0).get("reason").asText()).isEqualTo("year-end freeze");
  }

  /** A window covering now in {@code orgId}: its environment's id, or null for every one. */
  UUID window(UUID orgId, UUID environmentId, String[] commandTypes, String reason)
      throws Exception {
    UUID id = UUID.randomUUID();
    schema.exec(
        "insert into freeze_windows (id, org_id, environment_id, starts_at, ends_at, reason,"
            + " created_by, created_at, command_types)"
            + " values (?, ?, ?, now() - interval '1 hour', now() + interval '1 hour', ?, 'test',"
            + " now(), ?)",
        id,
        orgId,
        environmentId,
        reason,
        commandTypes);
    return id;
  }

  @Test
  void opaIsToldTheCommandTheClusterTheRequesterAndWhoStandsBehindIt() throws Exception {
    clusterIs("production", Capabilities.KUBERNETES_SCALE);
    Requester robot =
        new Requester(
            "sa-ci",
            "service_account",
            "ci-deployer",
            null,
            List.of(),
            List.of("m-creator", "m-owner"));
    CommandSpec spec = command("scale", robot, "the checkout is down, scaling up now");

    JsonNode input = activities.input(spec);

    assertThat(input.at("/command/type").asText()).isEqualTo("scale");
    assertThat(input.at("/command/target/name").asText()).isEqualTo("web");
    assertThat(input.at("/command/params/replicas").asText()).isEqualTo("3");
    assertThat(input.at("/command/break_glass/requested").asBoolean()).isTrue();
    assertThat(input.at("/command/break_glass/justification").asText())
        .isEqualTo("the checkout is down, scaling up now");
    assertThat(input.at("/cluster/environment").asText()).isEqualTo("production");
    assertThat(input.at("/cluster/capabilities/0").asText())
        .isEqualTo(Capabilities.KUBERNETES_SCALE);
    assertThat(input.at("/requester/type").asText()).isEqualTo("service_account");
    assertThat(input.at("/requester/behind").toString()).isEqualTo("[\"m-creator\",\"m-owner\"]");
    assertThat(input.get("settings").isNull()).isTrue();
  }

  @Test
  void whileOpaIsDownTheDecisionFailsClosedAndTheCommandSaysSo() throws Exception {
    clusterIs("production", Capabilities.KUBERNETES_SCALE);
    CommandSpec spec = command("scale", ANA, null);
    UUID id = UUID.fromString(spec.commandId());
    opaServer.stop();
    try {
      assertThatThrownBy(() -> activities.decide(spec)).isInstanceOf(OpaException.class);
      CommandRow waiting = commands.findById(org, id).orElseThrow();
      assertThat(waiting.statusDetail()).startsWith("waiting for a policy decision");
      assertThat(waiting.decisionOutcome()).isNull();
      assertThat(audited("command.decision", spec.commandId())).isZero();
    } finally {
      opaServer.start();
      policies.republish(org);
    }

    // Temporal retries the activity: now it decides and clears the waiting detail.
    assertThat(activities.decide(spec).outcome()).isEqualTo(Decision.REQUIRE_APPROVAL);
    CommandRow decided = commands.findById(org, id).orElseThrow();
    assertThat(decided.statusDetail()).isEmpty();
    assertThat(decided.decisionOutcome()).isEqualTo(Decision.REQUIRE_APPROVAL);
  }

  @Test
  void aCommandTheClustersAgentCannotRunIsNamedAndAnotherOrganizationsClusterIsGone()
      throws Exception {
    clusterIs("production", Capabilities.KUBERNETES_RESTART);
    assertThat(activities.missingCapability(org.toString(), cluster.toString(), "scale"))
        .isEqualTo(Capabilities.KUBERNETES_SCALE);
    assertThat(activities.missingCapability(org.toString(), cluster.toString(), "restart"))
        .isNull();

    UUID other = schema.newOrg();
    assertThatThrownBy(
            () -> activities.missingCapability(other.toString(), cluster.toString(), "restart"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is gone");
  }

  @Test
  void aRetriedTransitionWritesOneStepAndOneAuditEntryAndAFinalOneClosesTheCommand()
      throws Exception {
    clusterIs("staging", Capabilities.KUBERNETES_SCALE);
    CommandSpec spec = command("scale", ANA, null);
    String id = spec.commandId();

    activities.transition(org.toString(), id, 1, CommandStatus.executing, "system", "sent");
    activities.transition(org.toString(), id, 1, CommandStatus.executing, "system", "sent");
    activities.transition(
        org.toString(), id, 2, CommandStatus.completed, "agent", "scaled from 2 to 3");

    List<CommandEventRow> events = commands.events(org, UUID.fromString(id));
    assertThat(events)
        .extracting(CommandEventRow::status)
        .containsExactly("executing", "completed");
    assertThat(audited("command.executing", id)).isEqualTo(1);
    assertThat(audited("command.completed", id)).isEqualTo(1);
    CommandRow row = commands.findById(org, UUID.fromString(id)).orElseThrow();
    assertThat(row.status()).isEqualTo("completed");
    assertThat(row.statusDetail()).isEqualTo("scaled from 2 to 3");
    assertThat(row.finishedAt()).isNotNull();
  }

  @Test
  void aCommandIsParkedOnceForItsAgentAndARepeatedParkChangesNothing() throws Exception {
    clusterIs("staging", Capabilities.KUBERNETES_SCALE);
    CommandSpec spec = command("scale", ANA, null);
    UUID id = UUID.fromString(spec.commandId());
    List<UUID> nudged = new java.util.concurrent.CopyOnWriteArrayList<>();
    AgentJobMapper jobs = schema.mapper(AgentJobMapper.class);
    AgentDispatchActivitiesImpl dispatch =
        new AgentDispatchActivitiesImpl(
            commands, jobs, new NudgeRecorder(nudged), Clock.systemUTC());
    Instant deadline =
        Instant.now().plusSeconds(1200).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);

    dispatch.park(spec, deadline.toEpochMilli());
    AgentJob job = jobs.find(org, AgentJob.KIND_COMMAND, id.toString()).orElseThrow();
    assertThat(jobs.queued(org, List.of(cluster)))
        .extracting(AgentJob::ref)
        .contains(id.toString());
    assertThat(job.deadline()).isEqualTo(deadline);
    assertThat(commands.findById(org, id).orElseThrow().dispatchDeadline()).isEqualTo(deadline);
    assertThat(nudged).containsExactly(cluster);

    // Sent on a stream, then parked again by a retried workflow task: it stays sent.
    assertThat(jobs.claimSend(org, job.id(), Instant.now())).isEqualTo(1);
    dispatch.park(spec, deadline.plusSeconds(60).toEpochMilli());
    assertThat(jobs.claimSend(org, job.id(), Instant.now()))
        .as("a repeated park does not make it sendable again")
        .isZero();
    assertThat(commands.findById(org, id).orElseThrow().dispatchDeadline()).isEqualTo(deadline);
    assertThat(jobs.find(org, AgentJob.KIND_COMMAND, id.toString()).orElseThrow().deadline())
        .isEqualTo(deadline);

    // The agent's report: no activity's task token waits for it, it goes to the workflow by
    // signal. After it, a repeated park does not park the command again.
    assertThat(commands.recordReport(org, id, "scaled from 2 to 3", null, Instant.now()))
        .isEqualTo(1);
    assertThat(commands.recordReport(org, id, "again", "x", Instant.now())).isZero();
    assertThat(jobs.recordResult(org, job.id(), "{\"success\":true}", Instant.now())).isEqualTo(1);
    AgentJobMapper.Handle handle = jobs.handle(org, job.id()).orElseThrow();
    assertThat(handle.taskToken()).isNull();
    assertThat(handle.workflowId()).isEqualTo(id.toString());
    assertThat(handle.signal()).isEqualTo("reported");
    // Recorded, not yet handed over: it waits for the workflow, and is never sent again.
    assertThat(jobs.takeWaiting(org, cluster, AgentJob.KIND_COMMAND, id.toString())).isEmpty();
    dispatch.park(spec, deadline.toEpochMilli());
    assertThat(jobs.waiting(org, cluster)).extracting(AgentJob::ref).doesNotContain(id.toString());
    assertThat(jobs.handedOver(org, job.id(), Instant.now())).isEqualTo(1);
    assertThat(jobs.handle(org, job.id())).isEmpty();
    assertThat(nudged).hasSize(3);
  }

  /**
   * The gateway as the dispatch activities see it: only records which clusters it was nudged for.
   */
  record NudgeRecorder(List<UUID> nudged)
      implements dev.gitopshq.activities.gateway.AgentGatewayPort {
    @Override
    public void commandQueued(UUID orgId, UUID clusterId) {
      nudged.add(clusterId);
    }

    @Override
    public boolean sendTokenRotation(UUID orgId, UUID clusterId, String rotationId, String token) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean requestInventory(UUID orgId, UUID clusterId, String requestId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<CompletableFuture<dev.gitopshq.agent.v1.ResourceDetail>> readResource(
        UUID orgId,
        UUID clusterId,
        dev.gitopshq.agent.v1.ReadResource request,
        java.time.Duration timeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<CompletableFuture<dev.gitopshq.agent.v1.ArgoApplications>> listApplications(
        UUID orgId, UUID clusterId, java.time.Duration timeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<CompletableFuture<dev.gitopshq.agent.v1.AdaptersWired>> wireAdapters(
        UUID orgId,
        UUID clusterId,
        dev.gitopshq.agent.v1.WireAdapters request,
        java.time.Duration timeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<CompletableFuture<dev.gitopshq.agent.v1.ReconcileRequested>> requestReconcile(
        UUID orgId,
        UUID clusterId,
        dev.gitopshq.agent.v1.RequestReconcile request,
        java.time.Duration timeout) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void theFirstStepWaitsForTheRequestsCommitAndGivesUpOnARequestThatRolledBack() throws Exception {
    clusterIs("staging", Capabilities.KUBERNETES_SCALE);

    // The request inserts the command and holds its creation lock until it commits, as
    // CommandService does around the workflow's (eager) start.
    CountDownLatch inserted = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    AtomicReference<CommandSpec> committed = new AtomicReference<>();
    Thread request = openRequest(committed, inserted, finish, false);
    assertThat(inserted.await(10, TimeUnit.SECONDS)).isTrue();
    String id = committed.get().commandId();

    CompletableFuture<Void> first =
        CompletableFuture.runAsync(
            () ->
                activities.transition(
                    org.toString(), id, 1, CommandStatus.pending, "ana", "requested"));
    Thread.sleep(300);
    assertThat(first).as("the first step waits while the request is open").isNotDone();
    finish.countDown();
    request.join(10_000);
    first.get(10, TimeUnit.SECONDS);
    assertThat(commands.events(org, UUID.fromString(id)))
        .extracting(CommandEventRow::status)
        .containsExactly("pending");

    // A request that rolls back after Temporal started the workflow leaves nothing to govern.
    CountDownLatch inserted2 = new CountDownLatch(1);
    CountDownLatch finish2 = new CountDownLatch(1);
    AtomicReference<CommandSpec> rolledBack = new AtomicReference<>();
    Thread request2 = openRequest(rolledBack, inserted2, finish2, true);
    assertThat(inserted2.await(10, TimeUnit.SECONDS)).isTrue();
    String gone = rolledBack.get().commandId();
    CompletableFuture<Void> orphan =
        CompletableFuture.runAsync(
            () ->
                activities.transition(
                    org.toString(), gone, 1, CommandStatus.pending, "ana", "requested"));
    finish2.countDown();
    request2.join(10_000);
    assertThatThrownBy(() -> orphan.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.isNonRetryable()).isTrue();
              assertThat(f.getOriginalMessage()).contains(gone, "rolled back");
            });
    assertThat(commands.findById(org, UUID.fromString(gone))).isEmpty();
  }

  /** A request's transaction: inserts a command, takes its creation lock, waits, then ends. */
  Thread openRequest(
      AtomicReference<CommandSpec> spec,
      CountDownLatch inserted,
      CountDownLatch finish,
      boolean rollBack) {
    Thread t =
        new Thread(
            () ->
                schema
                    .tx()
                    .executeWithoutResult(
                        status -> {
                          spec.set(command("scale", ANA, null));
                          commands.lockCreation(UUID.fromString(spec.get().commandId()));
                          inserted.countDown();
                          try {
                            finish.await(10, TimeUnit.SECONDS);
                          } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                          }
                          if (rollBack) {
                            status.setRollbackOnly();
                          }
                        }));
    t.start();
    return t;
  }
}

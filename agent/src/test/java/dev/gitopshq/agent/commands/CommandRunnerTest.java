package dev.gitopshq.agent.commands;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.config.Capability;
import dev.gitopshq.agent.kube.KubeCommands;
import dev.gitopshq.agent.model.CommandPlans;
import dev.gitopshq.agent.v1.CommandResult;
import dev.gitopshq.agent.v1.ExecuteCommand;
import dev.gitopshq.agent.v1.Target;
import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The executors against the Fabric8 mock Kubernetes API, seeded like `make run`'s demo cluster. */
class CommandRunnerTest {
  TestKube kube;
  CommandRunner runner;
  final BlockingQueue<CommandResult> results = new LinkedBlockingQueue<>();

  @BeforeEach
  void setUp() {
    kube = TestKube.start().seedDemo();
    runner =
        new CommandRunner(
            EnumSet.of(
                Capability.KUBERNETES_SCALE,
                Capability.KUBERNETES_RESTART,
                Capability.ARGOCD_WRITE),
            new KubeCommands(kube::client),
            Clock.systemUTC(),
            results::add);
  }

  @AfterEach
  void tearDown() {
    runner.close();
    kube.close();
  }

  static ExecuteCommand command(
      String type, String ns, String kind, String name, Map<String, String> params) {
    Instant deadline = Instant.now().plusSeconds(60);
    return ExecuteCommand.newBuilder()
        .setCommandId(UUID.randomUUID().toString())
        .setType(type)
        .setTarget(Target.newBuilder().setNamespace(ns).setKind(kind).setName(name))
        .putAllParams(params)
        .setRequestedBy("alice@example.com")
        .setDeadline(Timestamp.newBuilder().setSeconds(deadline.getEpochSecond()))
        .build();
  }

  CommandResult next() throws InterruptedException {
    CommandResult r = results.poll(10, TimeUnit.SECONDS);
    assertThat(r).as("a result").isNotNull();
    return r;
  }

  Deployment web() {
    return kube.client().apps().deployments().inNamespace("demo").withName("web").get();
  }

  GenericKubernetesResource app() {
    return kube.client()
        .genericKubernetesResources(TestKube.ARGOCD_API_VERSION, "Application")
        .inNamespace("argocd")
        .withName("demo-app")
        .get();
  }

  @Test
  void scaleSetsReplicasOnceEvenWhenTheSameCommandArrivesTwice() throws Exception {
    ExecuteCommand scale = command("scale", "demo", "Deployment", "web", Map.of("replicas", "5"));
    runner.submit(scale);
    CommandResult first = next();
    assertThat(first.getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(first.getOutput()).isEqualTo("deployment.apps/web scaled from 2 to 5");
    assertThat(web().getSpec().getReplicas()).isEqualTo(5);
    String version = web().getMetadata().getResourceVersion();

    runner.submit(scale);
    assertThat(next().getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(web().getMetadata().getResourceVersion()).as("not written again").isEqualTo(version);
    assertThat(runner.executions()).isEqualTo(1);
  }

  @Test
  void restartStampsThePodTemplateWithTheCommandIdSoARetryCannotRestartTwice() throws Exception {
    ExecuteCommand restart = command("restart", "demo", "Deployment", "web", Map.of());
    runner.submit(restart);
    assertThat(next().getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(web().getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry(CommandPlans.RESTART, restart.getCommandId());
    String version = web().getMetadata().getResourceVersion();

    // A fresh agent (no memory of the first run) gets the same command: the stamp makes it a no-op.
    try (CommandRunner fresh =
        new CommandRunner(
            EnumSet.of(Capability.KUBERNETES_RESTART),
            new KubeCommands(kube::client),
            Clock.systemUTC(),
            results::add)) {
      fresh.submit(restart);
      CommandResult again = next();
      assertThat(again.getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
      assertThat(again.getOutput()).contains("already restarted");
    }
    assertThat(web().getMetadata().getResourceVersion()).isEqualTo(version);
  }

  @Test
  @SuppressWarnings("unchecked")
  void syncSetsTheApplicationOperationAndAHardRefresh() throws Exception {
    ExecuteCommand sync = command("sync", "argocd", "Application", "demo-app", Map.of());
    runner.submit(sync);
    CommandResult r = next();
    assertThat(r.getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);

    GenericKubernetesResource app = app();
    assertThat(app.getMetadata().getAnnotations())
        .containsEntry(CommandPlans.ARGOCD_REFRESH, "hard");
    Map<String, Object> operation =
        (Map<String, Object>) app.getAdditionalProperties().get("operation");
    assertThat(operation).containsKey("sync");
    assertThat((Map<String, Object>) operation.get("initiatedBy"))
        .containsEntry("username", "gitopshq:alice@example.com");
  }

  @Test
  void refreshAsksArgoCdForAHardRefreshWithoutSyncingAndOnlyOnce() throws Exception {
    ExecuteCommand refresh = command("refresh", "argocd", "Application", "demo-app", Map.of());
    runner.submit(refresh);
    CommandResult r = next();
    assertThat(r.getOutcome()).as(r.getError()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(r.getOutput()).contains("hard refresh requested");

    GenericKubernetesResource app = app();
    assertThat(app.getMetadata().getAnnotations())
        .containsEntry(CommandPlans.ARGOCD_REFRESH, "hard");
    assertThat(app.getAdditionalProperties()).doesNotContainKey("operation");
    String version = app.getMetadata().getResourceVersion();

    runner.submit(refresh);
    assertThat(next().getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(app().getMetadata().getResourceVersion()).isEqualTo(version);
  }

  @Test
  @SuppressWarnings("unchecked")
  void rollbackSyncsToTheRevisionOfTheChosenHistoryEntry() throws Exception {
    List<Map<String, Object>> history =
        (List<Map<String, Object>>)
            ((Map<String, Object>) app().getAdditionalProperties().get("status")).get("history");
    Map<String, Object> oldest = history.get(0);

    runner.submit(
        command(
            "rollback",
            "argocd",
            "Application",
            "demo-app",
            Map.of("historyId", String.valueOf(oldest.get("id")))));
    CommandResult r = next();
    assertThat(r.getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    Map<String, Object> sync =
        (Map<String, Object>)
            ((Map<String, Object>) app().getAdditionalProperties().get("operation")).get("sync");
    assertThat(sync).containsEntry("revision", oldest.get("revision"));

    runner.submit(
        command("rollback", "argocd", "Application", "demo-app", Map.of("historyId", "999")));
    CommandResult missing = next();
    assertThat(missing.getOutcome()).isEqualTo(CommandResult.Outcome.FAILED);
    assertThat(missing.getError()).contains("no history id 999");
  }

  @Test
  void aCommandPastItsDeadlineIsNotRun() throws Exception {
    ExecuteCommand late =
        command("scale", "demo", "Deployment", "web", Map.of("replicas", "9")).toBuilder()
            .setDeadline(
                Timestamp.newBuilder().setSeconds(Instant.now().minusSeconds(1).getEpochSecond()))
            .build();
    runner.submit(late);
    assertThat(next().getOutcome()).isEqualTo(CommandResult.Outcome.EXPIRED);
    assertThat(web().getSpec().getReplicas()).isEqualTo(2);
    assertThat(runner.executions()).isZero();
  }

  @Test
  void aTypeTheProtoDoesNotDeclareIsRefusedAndNeverRunsAsARollback() throws Exception {
    Object operationBefore = app().getAdditionalProperties().get("operation");
    for (String type : List.of("deploy", "", "ROLLBACK", "COMMAND_TYPE_ROLLBACK")) {
      runner.submit(command(type, "argocd", "Application", "demo-app", Map.of("historyId", "1")));
      CommandResult r = next();
      assertThat(r.getOutcome()).as(type).isEqualTo(CommandResult.Outcome.REFUSED);
      assertThat(r.getError()).isEqualTo("unknown command type '" + type + "'");
    }
    assertThat(app().getAdditionalProperties().get("operation")).isEqualTo(operationBefore);
    assertThat(runner.executions()).isZero();
  }

  @Test
  void aTypeWithoutItsCapabilityIsRefused() throws Exception {
    try (CommandRunner readOnly =
        new CommandRunner(
            EnumSet.of(Capability.OBSERVE),
            new KubeCommands(kube::client),
            Clock.systemUTC(),
            results::add)) {
      readOnly.submit(command("scale", "demo", "Deployment", "web", Map.of("replicas", "9")));
      CommandResult r = next();
      assertThat(r.getOutcome()).isEqualTo(CommandResult.Outcome.REFUSED);
      assertThat(r.getError()).contains("kubernetes.scale");
    }
    assertThat(web().getSpec().getReplicas()).isEqualTo(2);
  }

  @Test
  void resolveDriftThroughArgoCdNeedsArgocdWriteAndSyncsTheManagingApplication() throws Exception {
    // This runner has argocd.write but not direct.deploy.
    runner.submit(
        command(
            "resolve-drift",
            "demo",
            "Deployment",
            "web",
            Map.of("findingId", "f-1", "fieldManager", "gitopshq-agent")));
    CommandResult refused = next();
    assertThat(refused.getOutcome()).isEqualTo(CommandResult.Outcome.REFUSED);
    assertThat(refused.getError()).contains("direct.deploy");

    runner.submit(
        command(
            "resolve-drift",
            "demo",
            "Deployment",
            "web",
            Map.of("findingId", "f-1", "application", "argocd/demo-app")));
    CommandResult r = next();
    assertThat(r.getOutcome()).as(r.getError()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(r.getOutput()).contains("asked Argo CD to sync argocd/demo-app");
    assertThat(app().getAdditionalProperties()).containsKey("operation");
  }

  @Test
  void resolveDriftWithDirectDeployReappliesTheCarriedManifestAsTheFindingsFieldManager()
      throws Exception {
    java.util.List<String> applied = new java.util.ArrayList<>();
    try (CommandRunner direct =
        new CommandRunner(
            EnumSet.of(Capability.DIRECT_DEPLOY),
            new KubeCommands(kube::client),
            (manifest, ns, manager) -> {
              applied.add(ns + " " + manager + " " + manifest);
              return new KubeCommands.Outcome(true, "re-applied", "");
            },
            Clock.systemUTC(),
            results::add)) {
      ExecuteCommand c =
          command(
                  "resolve-drift",
                  "demo",
                  "Deployment",
                  "web",
                  Map.of("findingId", "f-2", "fieldManager", "gitopshq-agent"))
              .toBuilder()
              .setDesiredManifest("{\"kind\":\"Deployment\"}")
              .build();
      direct.submit(c);
      assertThat(next().getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
      direct.submit(c);
      assertThat(next().getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
      // Applied once for the command id, as the finding's field manager.
      assertThat(applied).containsExactly("demo gitopshq-agent {\"kind\":\"Deployment\"}");
    }
  }

  @Test
  void aMissingTargetFailsWithAClearError() throws Exception {
    runner.submit(command("scale", "demo", "Deployment", "nope", Map.of("replicas", "1")));
    CommandResult r = next();
    assertThat(r.getOutcome()).isEqualTo(CommandResult.Outcome.FAILED);
    assertThat(r.getError()).contains("deployment.apps/nope").contains("not found");
  }
}

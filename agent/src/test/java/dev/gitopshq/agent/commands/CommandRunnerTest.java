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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The executors against the Fabric8 mock Kubernetes API, seeded like `make run`'s demo cluster. */
class CommandRunnerTest {
  TestKube kube;
  CommandRunner runner;

  @BeforeEach
  void setUp() {
    kube = TestKube.start().seedDemo();
    runner = new CommandRunner(new KubeCommands(kube::client), Clock.systemUTC());
  }

  @AfterEach
  void tearDown() {
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
  void scaleSetsReplicasAndARerunOfTheSameCommandWritesNothing() {
    ExecuteCommand scale = command("scale", "demo", "Deployment", "web", Map.of("replicas", "5"));
    CommandResult first = runner.run(scale);
    assertThat(first.getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(first.getOutput()).isEqualTo("deployment.apps/web scaled from 2 to 5");
    assertThat(web().getSpec().getReplicas()).isEqualTo(5);
    String version = web().getMetadata().getResourceVersion();

    // An agent without the first answer in memory (restarted) runs it again: the stamp holds it.
    assertThat(runner.run(scale).getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(web().getMetadata().getResourceVersion()).as("not written again").isEqualTo(version);
  }

  @Test
  void restartStampsThePodTemplateWithTheCommandIdSoARetryCannotRestartTwice() {
    ExecuteCommand restart = command("restart", "demo", "Deployment", "web", Map.of());
    assertThat(runner.run(restart).getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(web().getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry(CommandPlans.RESTART, restart.getCommandId());
    String version = web().getMetadata().getResourceVersion();

    // A fresh agent (no memory of the first run) gets the same command: the stamp makes it a no-op.
    CommandResult again =
        new CommandRunner(new KubeCommands(kube::client), Clock.systemUTC()).run(restart);
    assertThat(again.getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(again.getOutput()).contains("already restarted");
    assertThat(web().getMetadata().getResourceVersion()).isEqualTo(version);
  }

  @Test
  @SuppressWarnings("unchecked")
  void syncSetsTheApplicationOperationAndAHardRefresh() throws Exception {
    ExecuteCommand sync = command("sync", "argocd", "Application", "demo-app", Map.of());
    CommandResult r = runner.run(sync);
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
    CommandResult r = runner.run(refresh);
    assertThat(r.getOutcome()).as(r.getError()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(r.getOutput()).contains("hard refresh requested");

    GenericKubernetesResource app = app();
    assertThat(app.getMetadata().getAnnotations())
        .containsEntry(CommandPlans.ARGOCD_REFRESH, "hard");
    assertThat(app.getAdditionalProperties()).doesNotContainKey("operation");
    String version = app.getMetadata().getResourceVersion();

    assertThat(runner.run(refresh).getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(app().getMetadata().getResourceVersion()).isEqualTo(version);
  }

  @Test
  @SuppressWarnings("unchecked")
  void rollbackSyncsToTheRevisionOfTheChosenHistoryEntry() throws Exception {
    List<Map<String, Object>> history =
        (List<Map<String, Object>>)
            ((Map<String, Object>) app().getAdditionalProperties().get("status")).get("history");
    Map<String, Object> oldest = history.get(0);

    CommandResult r =
        runner.run(
            command(
                "rollback",
                "argocd",
                "Application",
                "demo-app",
                Map.of("historyId", String.valueOf(oldest.get("id")))));
    assertThat(r.getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    Map<String, Object> sync =
        (Map<String, Object>)
            ((Map<String, Object>) app().getAdditionalProperties().get("operation")).get("sync");
    assertThat(sync).containsEntry("revision", oldest.get("revision"));

    CommandResult missing =
        runner.run(
            command("rollback", "argocd", "Application", "demo-app", Map.of("historyId", "999")));
    assertThat(missing.getOutcome()).isEqualTo(CommandResult.Outcome.FAILED);
    assertThat(missing.getError()).contains("no history id 999");
  }

  @Test
  void eachTypeNeedsItsCapabilityAndAnUnknownTypeIsRefusedByName() {
    ExecuteCommand scale = command("scale", "demo", "Deployment", "web", Map.of("replicas", "9"));
    assertThat(CommandRunner.needs(scale)).containsExactly(Capability.KUBERNETES_SCALE);
    assertThat(runner.refused(scale, CommandRunner.needs(scale)).getError())
        .isEqualTo("this agent does not have the kubernetes.scale capability");
    ExecuteCommand unknown = command("explode", "demo", "Deployment", "web", Map.of());
    assertThat(CommandRunner.needs(unknown)).isEmpty();
    CommandResult refused = runner.refused(unknown, Set.of());
    assertThat(refused.getOutcome()).isEqualTo(CommandResult.Outcome.REFUSED);
    assertThat(refused.getError()).isEqualTo("unknown command type 'explode'");
  }

  @Test
  void aTypeTheProtoDoesNotDeclareIsRefusedAndNeverRunsAsARollback() {
    Object operationBefore = app().getAdditionalProperties().get("operation");
    for (String type : List.of("deploy", "", "ROLLBACK", "COMMAND_TYPE_ROLLBACK")) {
      ExecuteCommand c =
          command(type, "argocd", "Application", "demo-app", Map.of("historyId", "1"));
      assertThat(CommandRunner.needs(c)).as(type).isEmpty();
      CommandResult r = runner.run(c);
      assertThat(r.getOutcome()).as(type).isEqualTo(CommandResult.Outcome.REFUSED);
      assertThat(r.getError()).isEqualTo("unknown command type '" + type + "'");
    }
    assertThat(app().getAdditionalProperties().get("operation")).isEqualTo(operationBefore);
  }

  @Test
  void resolveDriftThroughArgoCdNeedsArgocdWriteAndSyncsTheManagingApplication() {
    ExecuteCommand reapply =
        command(
            "resolve-drift",
            "demo",
            "Deployment",
            "web",
            Map.of("findingId", "f-1", "fieldManager", "gitopshq-agent"));
    assertThat(CommandRunner.needs(reapply)).containsExactly(Capability.DIRECT_DEPLOY);

    ExecuteCommand viaArgo =
        command(
            "resolve-drift",
            "demo",
            "Deployment",
            "web",
            Map.of("findingId", "f-1", "application", "argocd/demo-app"));
    assertThat(CommandRunner.needs(viaArgo)).containsExactly(Capability.ARGOCD_WRITE);
    CommandResult r = runner.run(viaArgo);
    assertThat(r.getOutcome()).as(r.getError()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(r.getOutput()).contains("asked Argo CD to sync argocd/demo-app");
    assertThat(app().getAdditionalProperties()).containsKey("operation");
  }

  @Test
  void resolveDriftWithDirectDeployReappliesTheCarriedManifestAsTheFindingsFieldManager() {
    List<String> applied = new ArrayList<>();
    CommandRunner direct =
        new CommandRunner(
            new KubeCommands(kube::client),
            (manifest, ns, manager) -> {
              applied.add(ns + " " + manager + " " + manifest);
              return new KubeCommands.Outcome(true, "re-applied", "");
            },
            Clock.systemUTC());
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
    assertThat(direct.run(c).getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(applied).containsExactly("demo gitopshq-agent {\"kind\":\"Deployment\"}");
  }

  @Test
  void aMissingTargetFailsWithAClearError() {
    CommandResult r =
        runner.run(command("scale", "demo", "Deployment", "nope", Map.of("replicas", "1")));
    assertThat(r.getOutcome()).isEqualTo(CommandResult.Outcome.FAILED);
    assertThat(r.getError()).contains("deployment.apps/nope").contains("not found");
  }
}

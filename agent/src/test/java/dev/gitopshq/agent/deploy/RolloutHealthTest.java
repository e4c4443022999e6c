package dev.gitopshq.agent.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.gitopshq.agent.deploy.RolloutHealth.State;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

class RolloutHealthTest {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static RolloutHealth.Verdict of(String yaml) throws Exception {
    return RolloutHealth.assess(YAML.readValue(yaml, GenericKubernetesResource.class));
  }

  @Test
  void aDeploymentIsHealthyOnceEveryReplicaIsUpdatedAndAvailable() throws Exception {
    String head =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, generation: 2}\n"
            + "spec: {replicas: 2}\n";
    assertThat(
            of(head
                    + "status: {observedGeneration: 1, replicas: 2, updatedReplicas: 2, availableReplicas: 2}")
                .state())
        .isEqualTo(State.PROGRESSING);
    assertThat(
            of(head
                    + "status: {observedGeneration: 2, replicas: 3, updatedReplicas: 2, availableReplicas: 2}")
                .message())
        .isEqualTo("1 old replicas are still terminating");
    assertThat(
            of(head
                    + "status: {observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 1}")
                .message())
        .isEqualTo("1 of 2 replicas available");
    RolloutHealth.Verdict done =
        of(
            head
                + "status: {observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2}");
    assertThat(done.state()).isEqualTo(State.HEALTHY);
    assertThat(done.message()).isEqualTo("rolled out: 2/2 available");
  }

  @Test
  void aStalledDeploymentIsDegraded() throws Exception {
    RolloutHealth.Verdict v =
        of(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, generation: 1}\n"
                + "status:\n  observedGeneration: 1\n  conditions:\n  - {type: Progressing, status: 'False',"
                + " reason: ProgressDeadlineExceeded, message: 'ReplicaSet web-1 has timed out progressing.'}\n");
    assertThat(v.state()).isEqualTo(State.DEGRADED);
    assertThat(v.message()).contains("timed out progressing");
  }

  @Test
  void aJobIsHealthyWhenCompleteAndDegradedWhenFailed() throws Exception {
    String head = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\n";
    assertThat(of(head + "status: {active: 1}").state()).isEqualTo(State.PROGRESSING);
    assertThat(of(head + "status:\n  conditions:\n  - {type: Complete, status: 'True'}\n").state())
        .isEqualTo(State.HEALTHY);
    assertThat(
            of(head
                    + "status:\n  conditions:\n  - {type: Failed, status: 'True', message: BackoffLimitExceeded}\n")
                .state())
        .isEqualTo(State.DEGRADED);
  }

  @Test
  void statefulSetsAndDaemonSetsWaitForTheirRollout() throws Exception {
    assertThat(
            of("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, generation: 1}\nspec: {replicas: 2}\n"
                    + "status: {observedGeneration: 1, readyReplicas: 2, updatedReplicas: 2, currentRevision: a, updateRevision: b}")
                .state())
        .isEqualTo(State.PROGRESSING);
    assertThat(
            of("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, generation: 1}\n"
                    + "status: {observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3}")
                .state())
        .isEqualTo(State.HEALTHY);
  }

  @Test
  void otherKindsAreHealthyOnceAppliedAndOnlyWorkloadsAreWaitedFor() throws Exception {
    assertThat(of("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n").state())
        .isEqualTo(State.HEALTHY);
    assertThat(RolloutHealth.watched("apps/v1", "Deployment")).isTrue();
    assertThat(RolloutHealth.watched("v1", "Service")).isFalse();
  }
}

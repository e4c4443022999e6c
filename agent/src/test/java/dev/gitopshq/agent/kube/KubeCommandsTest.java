package dev.gitopshq.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.agent.model.CommandPlans;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.zjsonpatch.JsonPatch;
import io.fabric8.zjsonpatch.JsonPatchException;
import org.junit.jupiter.api.Test;

/**
 * The write a command makes: a JSON patch guarded on the fields it changes, so the controllers
 * writing a Deployment's status during a rollout do not fail a scale, and a concurrent change to
 * the same field does.
 */
class KubeCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static Deployment web(int replicas, String resourceVersion) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName("web")
        .withNamespace("demo")
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .endSpec()
        .withNewStatus()
        .withReplicas(replicas)
        .withReadyReplicas(replicas)
        .endStatus()
        .build();
  }

  /** The patch command cmd-1 (scale to 3) writes after reading {@code read}. */
  static JsonNode scaleTo3(Deployment read) throws Exception {
    return JSON.readTree(
        KubeCommands.guardedPatch(read, CommandPlans.scale(read, "cmd-1", 3).desired()));
  }

  @Test
  void aScaleIsWrittenWhileTheControllerKeepsUpdatingTheStatus() throws Exception {
    Deployment read = web(2, "100");
    JsonNode patch = scaleTo3(read);

    // What the API server holds by the time the patch arrives: the deployment controller has
    // written the status (a new resourceVersion), nobody touched the spec.
    ObjectNode live = JSON.valueToTree(read);
    ((ObjectNode) live.path("status")).put("readyReplicas", 1);
    ((ObjectNode) live.path("metadata")).put("resourceVersion", "101");

    JsonNode written = JsonPatch.apply(patch, live);
    assertThat(written.at("/spec/replicas").asInt()).isEqualTo(3);
    assertThat(written.at("/metadata/annotations").get(CommandPlans.LAST_COMMAND).asText())
        .isEqualTo("cmd-1");
    assertThat(written.at("/status/readyReplicas").asInt()).as("status left alone").isEqualTo(1);
    assertThat(patch.toString()).doesNotContain("/status").doesNotContain("resourceVersion");
  }

  @Test
  void aConcurrentChangeToTheSameFieldFailsThePatch() throws Exception {
    Deployment read = web(2, "100");
    JsonNode patch = scaleTo3(read);

    // Someone scaled it to 5 since it was read: the command must re-read and re-plan, not
    // overwrite.
    ObjectNode live = JSON.valueToTree(read);
    ((ObjectNode) live.path("spec")).put("replicas", 5);

    assertThatThrownBy(() -> JsonPatch.apply(patch, live)).isInstanceOf(JsonPatchException.class);
  }
}

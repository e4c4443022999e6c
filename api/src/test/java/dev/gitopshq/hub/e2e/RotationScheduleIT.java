package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.temporal.RotationSchedules;
import dev.gitopshq.testkube.TestKube;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Scheduled rotation through a real Temporal Schedule on the Temporal dev server. */
class RotationScheduleIT {
  static HubTestSupport hub;
  static TestKube kube;

  @BeforeAll
  static void start() {
    kube = TestKube.start();
    hub =
        new HubTestSupport(true)
            .property("gitopshq.tokens.rotation-interval", "5s")
            .property("gitopshq.tokens.rotation-grace", "2s")
            .property("gitopshq.tokens.rotation-ack-timeout", "10s")
            .start();
  }

  @AfterAll
  static void stop() {
    hub.close();
    kube.close();
  }

  static String storedToken(Path file) throws Exception {
    Matcher m = Pattern.compile("ghqa_[0-9a-f]{64}").matcher(Files.readString(file));
    return m.find() ? m.group() : null;
  }

  @Test
  void anAgentWithTokenRotateIsRotatedOnScheduleAndTheScheduleGoesWithTheCluster()
      throws Exception {
    JsonNode created =
        hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", "scheduled")).body();
    String clusterId = created.get("cluster").get("id").asText();
    Path file = Files.createTempDirectory("agent").resolve("identity.json");
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(AgentConfig.AGENT_TOKEN_PATH, file.toString());
    env.put(AgentConfig.CLUSTER_NAME, "scheduled");
    env.put(AgentConfig.CAPABILITIES, "observe,token.rotate");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "1");
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());

    RotationSchedules schedules = hub.bean(RotationSchedules.class);
    try (Agent agent = Agent.start(AgentConfig.fromEnv(env), kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      String first = storedToken(file);
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> schedules.exists(UUID.fromString(clusterId)));
      await().atMost(Duration.ofSeconds(30)).until(() -> !first.equals(storedToken(file)));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  hub.get(
                              "/api/v2/audit?action=cluster.token_rotation.completed&target="
                                  + clusterId,
                              OWNER_TOKEN)
                          .body()
                          .get("items")
                          .size()
                      >= 1);
      assertThat(agent.isConnected() || agent.awaitConnected(Duration.ofSeconds(10))).isTrue();

      assertThat(hub.send("DELETE", "/api/v2/clusters/" + clusterId, OWNER_TOKEN, null).status())
          .isEqualTo(204);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !schedules.exists(UUID.fromString(clusterId)));
    }
  }
}

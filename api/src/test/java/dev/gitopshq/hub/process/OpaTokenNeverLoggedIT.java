package dev.gitopshq.hub.process;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * OPA's token never reaches the hub's log (issue 26, item 5: with the token read from hub.log, a
 * module planted in OPA changed decisions). The hub runs as production runs it, its output in one
 * file as {@code make run} keeps hub.log, with the hub's own loggers at DEBUG: its start,
 * decisions, a module planted in OPA and removed, OPA going away (every call failing) and coming
 * back empty, and a second hub holding a token OPA refuses. Neither token appears anywhere in
 * either log.
 */
@ExtendWith(HubProcess.LogsOnFailure.class)
class OpaTokenNeverLoggedIT {
  private static final Map<String, String> VERBOSE =
      Map.of("LOGGING_LEVEL_DEV_GITOPSHQ", "DEBUG", "OPA_REPUBLISHINTERVAL", "300ms");

  static SharedBackends backends;
  static HubProcess hub;

  @BeforeAll
  static void start() {
    backends = SharedBackends.start();
    hub = new HubProcess("hub-opa-token", backends, VERBOSE).start();
  }

  @AfterAll
  static void stop() {
    if (hub != null) {
      hub.close();
    }
    if (backends != null) {
      backends.close();
    }
  }

  static Response decide(HubProcess h) {
    return h.post(
        "/api/v2/policies/approval/evaluate",
        OWNER_TOKEN,
        Map.of("input", Map.of("command", Map.of("type", "sync"))));
  }

  static String log(HubProcess h) throws Exception {
    return Files.readString(h.logFile());
  }

  @Test
  void theTokenIsInNoLineOfTheHubsLogWhateverHappensToOpa() throws Exception {
    OpaTestServer opa = backends.opa();
    String token = opa.token();
    await().atMost(Duration.ofSeconds(30)).until(() -> decide(hub).status() == 200);

    // Someone plants a module (with a credential of OPA's operator: the hub's token may not); the
    // next decision removes it and the hub logs that it did.
    HttpRequest plant =
        HttpRequest.newBuilder(URI.create(opa.url() + "/v1/policies/planted/x"))
            .header("Authorization", "Bearer " + opa.operatorToken())
            .PUT(HttpRequest.BodyPublishers.ofString("package planted\n\nx := 1\n"))
            .build();
    assertThat(
            HttpClient.newHttpClient()
                .send(plant, HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(200);
    await().atMost(Duration.ofSeconds(30)).until(() -> hub.logLines("planted/x") > 0);

    // OPA goes away: every call fails and the hub says so; then it comes back empty.
    opa.stop();
    assertThat(decide(hub).status()).isEqualTo(503);
    await().atMost(Duration.ofSeconds(30)).until(() -> hub.logLines("is unreachable") > 0);
    opa.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> decide(hub).status() == 200);

    // A replica holding a token OPA does not admit: OPA's refusals are logged, not the token.
    String wrong = "not-the-opa-token-" + java.util.UUID.randomUUID();
    try (HubProcess refused =
        new HubProcess(
                "hub-wrong-opa-token",
                backends,
                Map.of(
                    "GITOPSHQ_OPA_TOKEN",
                    wrong,
                    "LOGGING_LEVEL_DEV_GITOPSHQ",
                    "DEBUG",
                    "OPA_REPUBLISHINTERVAL",
                    "300ms"))
            .start()) {
      assertThat(decide(refused).status()).isNotEqualTo(200);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> refused.logLines("refused the hub's credentials") > 0);
      String refusedLog = log(refused);
      assertThat(refusedLog).doesNotContain(wrong).doesNotContain(token);
    }

    String hubLog = log(hub);
    assertThat(hubLog).contains("removed the module 'planted/x'");
    assertThat(hubLog).doesNotContain(token);
  }
}

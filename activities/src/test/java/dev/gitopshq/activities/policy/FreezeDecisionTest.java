package dev.gitopshq.activities.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.workflows.governance.FreezeCheck;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The freeze decision as the hub reads it: a decision that is not well-formed never lets a
 * deployment through, and missing windows mean "try again", not "not frozen".
 */
class FreezeDecisionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static FreezeCheck check(String decision) {
    try {
      return FreezeService.toCheck(
          new PolicyEvaluation("freeze", 3, "0".repeat(64), JSON.readTree(decision)));
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Test
  void mapsAWellFormedDecision() {
    FreezeCheck c =
        check(
            "{\"frozen\":true,\"blocked\":false,\"windows\":[\"w1\"],\"windows_loaded\":true,"
                + "\"reasons\":[\"production is frozen until 2026-12-27T00:00:00Z: year-end freeze\"]}");
    assertThat(c)
        .isEqualTo(
            new FreezeCheck(
                "freeze",
                3,
                true,
                false,
                List.of("production is frozen until 2026-12-27T00:00:00Z: year-end freeze")));
  }

  @Test
  void windowsNotLoadedIntoOpaMeanRetryNotAnAnswer() {
    assertThatThrownBy(
            () ->
                check("{\"frozen\":true,\"blocked\":true,\"windows_loaded\":false,\"reasons\":[]}"))
        .isInstanceOf(OpaUnavailableException.class)
        .hasMessageContaining("policy freeze version 3");
  }

  @Test
  void aMalformedDecisionFailsClosed() {
    for (String bad :
        List.of(
            "{\"frozen\":\"no\",\"blocked\":false}",
            "{\"frozen\":false}",
            "{\"blocked\":false}",
            "{\"frozen\":false,\"blocked\":true}",
            "{\"frozen\":true,\"blocked\":true,\"reasons\":\"frozen\"}",
            "{\"frozen\":true,\"blocked\":true,\"reasons\":[1]}",
            "[]",
            "null")) {
      assertThatThrownBy(() -> check(bad)).as(bad).isInstanceOf(PolicyEvaluationException.class);
    }
  }

  @Test
  void theInputNamesEveryEnvironmentAndTheTimeInUtc() {
    JsonNode in =
        FreezeService.input(
            new FreezeService.Request(
                "promote",
                "p-1",
                "shop",
                List.of("staging", "production"),
                true,
                null,
                Instant.parse("2026-12-20T10:00:00Z")));
    assertThat(in.toString())
        .isEqualTo(
            "{\"action\":\"promote\",\"project\":{\"id\":\"p-1\",\"name\":\"shop\"},"
                + "\"environments\":[{\"name\":\"staging\"},{\"name\":\"production\"}],"
                + "\"break_glass\":{\"requested\":true,\"justification\":\"\"},"
                + "\"time\":\"2026-12-20T10:00:00Z\"}");
  }
}

package dev.gitopshq.hub.drift;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A cluster's drift REST API as the owner uses it in integration tests: on-demand checks, findings
 * and resolve-drift commands (DriftEndToEndIT, DirectDeployIT).
 */
public record DriftApi(HubTestSupport hub, String clusterId) {

  /** {@code /api/v2/clusters/{id}/drift}. */
  public String base() {
    return "/api/v2/clusters/" + clusterId + "/drift";
  }

  /** Asks for a check (202, trigger manual); returns its id. */
  public String requestCheck() {
    Response r = hub.post(base() + "/checks", OWNER_TOKEN, Map.of());
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    assertThat(r.body().get("trigger").asText()).isEqualTo("manual");
    return r.body().get("id").asText();
  }

  /** Asks for a check and waits until it completed or failed; returns it. */
  public JsonNode check() {
    return awaitCheck(requestCheck());
  }

  /** Waits until a check completed or failed; returns it. */
  public JsonNode awaitCheck(String id) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              last[0] = ok(hub.get(base() + "/checks/" + id, OWNER_TOKEN));
              String s = last[0].get("status").asText();
              return s.equals("completed") || s.equals("failed");
            });
    return last[0];
  }

  /** The findings list, e.g. {@code "?state=open"} ({@code ""} for all). */
  public JsonNode list(String query) {
    return ok(hub.get(base() + query, OWNER_TOKEN));
  }

  public JsonNode finding(String id) {
    return ok(hub.get(base() + "/" + id, OWNER_TOKEN));
  }

  /** Requests resolve-drift for a finding (202); returns the command's id. */
  public String resolve(String findingId, String reason) {
    Response r =
        hub.post(base() + "/" + findingId + "/resolve", OWNER_TOKEN, Map.of("reason", reason));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    return r.body().get("id").asText();
  }

  /** Waits until a command has a status; returns it. */
  public JsonNode awaitCommand(String id, String status) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              last[0] = hub.get("/api/v2/commands/" + id, OWNER_TOKEN).body();
              return last[0].get("status").asText().equals(status);
            });
    return last[0];
  }

  /** The paths of a finding's differences, in order. */
  public static List<String> paths(JsonNode finding) {
    List<String> out = new ArrayList<>();
    finding.get("differences").forEach(d -> out.add(d.get("path").asText()));
    return out;
  }

  static JsonNode ok(Response r) {
    assertThat(r.status()).as(r.raw()).isBetween(200, 299);
    return r.body();
  }
}

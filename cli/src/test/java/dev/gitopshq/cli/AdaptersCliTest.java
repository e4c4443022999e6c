package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's adapter wiring from the command line, against a stand-in for the hub's REST API.
 */
class AdaptersCliTest {
  static final String CLUSTER = "22222222-2222-2222-2222-222222222222";
  static final String WIRED =
      "{\"adapter\":\"%s\",\"bindings\":[{\"project\":\"shop\",\"environment\":\"dev\","
          + "\"tenant\":\"acme\",\"adapter\":\"flux\",\"outcome\":\"wired\",\"message\":\"\","
          + "\"objects\":[{\"apiVersion\":\"kustomize.toolkit.fluxcd.io/v1\","
          + "\"kind\":\"Kustomization\",\"namespace\":\"flux-system\","
          + "\"name\":\"gitopshq-shop-dev-acme\"}],\"updatedAt\":\"2026-11-27T10:00:00Z\"}]}";

  @TempDir Path tmp;
  final FakeHub hub = new FakeHub();

  @AfterEach
  void stop() {
    hub.close();
  }

  @Test
  void adaptersListsEachBindingsWiring() {
    hub.answer(
        "GET /api/v2/clusters", "{\"items\":[{\"id\":\"" + CLUSTER + "\",\"name\":\"eu-1\"}]}");
    hub.answer("GET /api/v2/clusters/" + CLUSTER + "/adapters", WIRED.formatted("auto"));

    Run.Result r = hub.run(tmp, "clusters", "adapters", "eu-1");

    assertThat(r.code()).as(r.toString()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0)).startsWith("PROJECT").contains("TENANT").contains("OUTCOME");
    assertThat(lines.get(1)).contains("shop").contains("acme").contains("flux").contains("wired");
    assertThat(r.err()).doesNotContain("manual");
  }

  @Test
  void setManualSendsTheSettingAndSaysTheHubKeepsNothing() {
    hub.answer(
        "GET /api/v2/clusters", "{\"items\":[{\"id\":\"" + CLUSTER + "\",\"name\":\"eu-1\"}]}");
    hub.answer("PUT /api/v2/clusters/" + CLUSTER + "/adapters", WIRED.formatted("manual"));
    hub.answer("GET /api/v2/clusters/" + CLUSTER + "/adapters", WIRED.formatted("manual"));

    Run.Result r = hub.run(tmp, "clusters", "adapters", "eu-1", "--set", "manual");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("PUT /api/v2/clusters/" + CLUSTER + "/adapters").toString())
        .isEqualTo("{\"adapter\":\"manual\"}");
    assertThat(r.err()).contains("manual; the hub keeps no objects there");
  }

  @Test
  void aSettingOtherThanAutoOrManualIsAUsageError() {
    hub.answer(
        "GET /api/v2/clusters", "{\"items\":[{\"id\":\"" + CLUSTER + "\",\"name\":\"eu-1\"}]}");

    Run.Result r = hub.run(tmp, "clusters", "adapters", "eu-1", "--set", "sometimes");

    assertThat(r.code()).isEqualTo(ExitCode.USAGE);
    assertThat(r.err()).contains("--set must be auto or manual");
    assertThat(hub.received).doesNotContainKey("PUT /api/v2/clusters/" + CLUSTER + "/adapters");
  }
}

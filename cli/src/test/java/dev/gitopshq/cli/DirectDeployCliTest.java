package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Direct deploy from the command line, against a stand-in for the hub's REST API. */
class DirectDeployCliTest {
  static final String PROJECT = "11111111-1111-1111-1111-111111111111";
  static final String CLUSTER = "22222222-2222-2222-2222-222222222222";

  @TempDir Path tmp;
  final FakeHub hub = new FakeHub();

  @AfterEach
  void stop() {
    hub.close();
  }

  Run.Result run(String... args) {
    return hub.run(tmp, args);
  }

  @Test
  void setEnvironmentSwitchesEveryClusterToDirectAndKeepsTheirOverridesAndCreateNamespace() {
    hub.answer(
        "GET /api/v2/projects", "{\"items\":[{\"id\":\"" + PROJECT + "\",\"name\":\"shop\"}]}");
    hub.answer(
        "GET /api/v2/projects/" + PROJECT + "/environments",
        "{\"items\":[{\"name\":\"production\",\"namespacePattern\":\"{{ .tenant }}-prod\","
            + "\"createNamespace\":true,"
            + "\"clusters\":[{\"cluster\":\"eu-1\",\"overrides\":{\"storageClass\":\"gp3\"},"
            + "\"deliveryMode\":\"argocd\"}]}]}");
    hub.answer(
        "PUT /api/v2/projects/" + PROJECT + "/environments/production",
        "{\"name\":\"production\",\"clusters\":[{\"cluster\":\"eu-1\",\"deliveryMode\":\"direct\"}]}");

    Run.Result r =
        run("projects", "set-environment", "shop", "production", "--delivery-mode", "direct");

    assertThat(r.code()).as(r.toString()).isZero();
    JsonNode put = hub.received.get("PUT /api/v2/projects/" + PROJECT + "/environments/production");
    assertThat(put.toString())
        .isEqualTo(
            "{\"namespacePattern\":\"{{ .tenant }}-prod\",\"deliveryMode\":\"direct\","
                + "\"createNamespace\":true,\"clusters\":[{\"cluster\":\"eu-1\",\"overrides\":{\"storageClass\":\"gp3\"},"
                + "\"deliveryMode\":\"direct\"}]}");
  }

  @Test
  void directDeploysListsTheClustersAppliesAndWarnsWithoutTheCapability() {
    hub.answer(
        "GET /api/v2/clusters", "{\"items\":[{\"id\":\"" + CLUSTER + "\",\"name\":\"eu-1\"}]}");
    hub.answer(
        "GET /api/v2/clusters/" + CLUSTER + "/direct-deploys",
        "{\"capability\":false,\"applies\":[{\"project\":\"shop\",\"environment\":\"production\","
            + "\"commit\":\"0123456789ab\",\"status\":\"succeeded\",\"applied\":2,\"pruned\":1,"
            + "\"failed\":0,\"finishedAt\":\"2026-11-26T10:01:00Z\"}],\"objects\":[],"
            + "\"objectsTruncated\":false}");

    Run.Result r = run("clusters", "direct-deploys", "eu-1");

    assertThat(r.code()).as(r.toString()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0)).startsWith("PROJECT").contains("APPLIED").contains("PRUNED");
    assertThat(lines.get(1))
        .contains("shop")
        .contains("production")
        .contains("0123456789ab")
        .contains("succeeded");
    assertThat(r.err()).contains("has not announced direct.deploy");
  }
}

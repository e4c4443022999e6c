package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hub acceptance from the command line, against a stand-in for the hub's REST API. */
class AcceptanceCliTest {
  static final String CLUSTER = "33333333-3333-3333-3333-333333333333";
  static final String LIST = "{\"items\":[{\"id\":\"" + CLUSTER + "\",\"name\":\"edge-1\"}]}";

  static String view(String status, String state) {
    return "{\"id\":\""
        + CLUSTER
        + "\",\"name\":\"edge-1\",\"status\":\""
        + status
        + "\",\"acceptance\":{\"state\":\""
        + state
        + "\",\"agentConnected\":true,\"apiServerSha256\":\""
        + "ab".repeat(32)
        + "\",\"nodeCount\":7,\"kubernetesVersion\":\"v1.31.4\",\"agentVersion\":\"0.1.0\"}}";
  }

  @TempDir Path tmp;
  final FakeHub hub = new FakeHub();

  @AfterEach
  void stop() {
    hub.close();
  }

  @Test
  void getShowsTheIdentityAnAdminChecksBeforeAccepting() {
    hub.answer("GET /api/v2/clusters", LIST);
    hub.answer("GET /api/v2/clusters/" + CLUSTER, view("PendingAcceptance", "pending"));

    Run.Result r = hub.run(tmp, "clusters", "get", "edge-1");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("PendingAcceptance")
        .contains("ab".repeat(32))
        .contains("v1.31.4")
        .containsPattern("Nodes:\\s+7");
  }

  @Test
  void acceptAndRejectPostToTheCluster() {
    hub.answer("GET /api/v2/clusters", LIST);
    hub.answer("POST /api/v2/clusters/" + CLUSTER + "/accept", view("Connected", "accepted"));
    hub.answer("POST /api/v2/clusters/" + CLUSTER + "/reject", view("Rejected", "rejected"));

    Run.Result accepted = hub.run(tmp, "cluster", "accept", "edge-1");
    assertThat(accepted.code()).as(accepted.toString()).isZero();
    // The stand-in answers only these routes: anything else is a 404 and a non-zero exit.
    assertThat(accepted.out()).contains("accepted");

    Run.Result rejected = hub.run(tmp, "cluster", "reject", "edge-1");
    assertThat(rejected.code()).as(rejected.toString()).isZero();
    assertThat(rejected.out()).contains("Rejected");
  }

  @Test
  void theOrganizationsDefaultIsSetWithRequire() {
    hub.answer("PUT /api/v2/clusters/acceptance", "{\"requireAcceptance\":true}");

    Run.Result r = hub.run(tmp, "clusters", "acceptance", "--require", "true");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("PUT /api/v2/clusters/acceptance").toString())
        .isEqualTo("{\"requireAcceptance\":true}");
    assertThat(r.out()).contains("true");
  }

  @Test
  void aJoinTokenCanRequireAcceptance() {
    hub.answer("GET /api/v2/clusters", LIST);
    hub.answer(
        "POST /api/v2/clusters/" + CLUSTER + "/join-token",
        "{\"registrationToken\":\"ghqa_reg_x\",\"expiresAt\":\"2026-11-27T12:00:00Z\","
            + "\"installCommand\":\"helm install\"}");

    Run.Result r = hub.run(tmp, "clusters", "join-token", "edge-1", "--require-acceptance", "true");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("POST /api/v2/clusters/" + CLUSTER + "/join-token").toString())
        .isEqualTo("{\"requireAcceptance\":true}");
  }
}

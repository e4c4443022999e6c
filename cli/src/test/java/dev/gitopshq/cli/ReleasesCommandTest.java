package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A deployment from the command line, against a stand-in for the hub's REST API. */
class ReleasesCommandTest {
  static final String PROJECT = "11111111-1111-1111-1111-111111111111";
  static final String DEPLOYMENT = "33333333-3333-3333-3333-333333333333";

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
  void deploymentShowsTheDecisionAndWhatItChanges() {
    hub.answer(
        "GET /api/v2/projects", "{\"items\":[{\"id\":\"" + PROJECT + "\",\"name\":\"shop\"}]}");
    hub.answer(
        "GET /api/v2/projects/" + PROJECT + "/deployments/" + DEPLOYMENT,
        "{\"id\":\""
            + DEPLOYMENT
            + "\",\"release\":{\"number\":4},\"action\":\"deploy\","
            + "\"environments\":[\"dev\"],\"status\":\"pending_approval\","
            + "\"requester\":{\"name\":\"ada@example.com\"},"
            + "\"decision\":{\"policy\":\"release\",\"version\":2,"
            + "\"outcome\":\"require_approval\"},"
            + "\"changes\":{\"added\":3,\"changed\":1,\"removed\":0,\"clusterScoped\":1,"
            + "\"rbac\":1,\"sensitive\":1,\"images\":2,\"unreadable\":0,\"truncated\":false}}");

    Run.Result r = run("releases", "deployment", "shop", DEPLOYMENT);

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("Decision:      require_approval (policy release v2)")
        .contains(
            "Changes:       3 added, 1 changed, 0 removed; RBAC: 1; cluster-scoped: 1; images: 2\n")
        .contains("Status:        pending_approval");
  }

  @Test
  void aDeploymentNotDecidedYetShowsNoChangesLine() {
    hub.answer(
        "GET /api/v2/projects", "{\"items\":[{\"id\":\"" + PROJECT + "\",\"name\":\"shop\"}]}");
    hub.answer(
        "GET /api/v2/projects/" + PROJECT + "/deployments/" + DEPLOYMENT,
        "{\"id\":\"" + DEPLOYMENT + "\",\"status\":\"pending\",\"changes\":null}");

    Run.Result r = run("releases", "deployment", "shop", DEPLOYMENT);

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("pending").doesNotContain("Changes:").doesNotContain("Decision:");
  }

  @Test
  void aDegradedDeploymentShowsWhatEachClusterRan() {
    hub.answer(
        "GET /api/v2/projects", "{\"items\":[{\"id\":\"" + PROJECT + "\",\"name\":\"shop\"}]}");
    hub.answer(
        "GET /api/v2/projects/" + PROJECT + "/deployments/" + DEPLOYMENT,
        "{\"id\":\""
            + DEPLOYMENT
            + "\",\"action\":\"promote\",\"environments\":[\"staging\"],"
            + "\"status\":\"degraded\",\"clusters\":["
            + "{\"environment\":\"staging\",\"cluster\":\"eu-1\",\"mode\":\"argocd\","
            + "\"verified\":true,\"deliverer\":\"argocd:shop-staging\","
            + "\"revision\":\"0123456789abcdef0123456789abcdef01234567\","
            + "\"health\":\"Synced, Healthy\",\"reason\":null,"
            + "\"observedAt\":\"2026-11-26T10:02:00Z\",\"verifiedAt\":\"2026-11-26T10:02:00Z\"},"
            + "{\"environment\":\"staging\",\"cluster\":\"us-1\",\"mode\":\"flux\","
            + "\"verified\":false,\"deliverer\":\"flux:flux-system/shop\","
            + "\"revision\":\"fedcba9876543210fedcba9876543210fedcba98\","
            + "\"health\":\"Ready False\",\"reason\":\"runs fedcba987654\","
            + "\"observedAt\":\"2026-11-26T10:09:00Z\",\"verifiedAt\":null}]}");

    Run.Result r = run("releases", "deployment", "shop", DEPLOYMENT);

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("Status:        degraded\n")
        .contains(
            "degraded: the commits are written, but a cluster did not run them in time;"
                + " promoting from here needs --break-glass\n");
    java.util.List<String> lines = r.out().lines().toList();
    int header =
        lines.indexOf(
            lines.stream().filter(l -> l.startsWith("ENVIRONMENT")).findFirst().orElseThrow());
    assertThat(lines.get(header))
        .contains("CLUSTER")
        .contains("MODE")
        .contains("VERIFIED")
        .contains("REVISION")
        .contains("HEALTH")
        .contains("VERIFIED AT");
    assertThat(lines.get(header + 1).split(" {2,}"))
        .containsExactly(
            "staging",
            "eu-1",
            "argocd",
            "yes",
            "0123456789ab",
            "Synced, Healthy",
            "2026-11-26T10:02:00Z");
    assertThat(lines.get(header + 2).split(" {2,}"))
        .containsExactly(
            "staging", "us-1", "flux", "no", "fedcba987654", "Ready False — runs fedcba987654");
  }

  @Test
  void aDeploymentInAnEnvironmentThatIsNotVerifiedShowsNoClusterTable() {
    hub.answer(
        "GET /api/v2/projects", "{\"items\":[{\"id\":\"" + PROJECT + "\",\"name\":\"shop\"}]}");
    hub.answer(
        "GET /api/v2/projects/" + PROJECT + "/deployments/" + DEPLOYMENT,
        "{\"id\":\"" + DEPLOYMENT + "\",\"status\":\"deployed\",\"clusters\":[]}");

    Run.Result r = run("releases", "deployment", "shop", DEPLOYMENT);

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("deployed").doesNotContain("CLUSTER").doesNotContain("degraded");
  }
}

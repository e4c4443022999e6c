package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A project's fence and a degraded promotion from the command line, against a stand-in for the
 * hub's REST API.
 */
class FenceCommandTest {
  static final String PROJECT = "11111111-1111-1111-1111-111111111111";
  static final String FENCE = "/api/v2/projects/" + PROJECT + "/fence";
  static final String DEFAULT =
      "{\"allowedNamespaces\":[],\"clusterScopedKinds\":[],"
          + "\"deniedKinds\":[\"rbac.authorization.k8s.io/*\",\"admissionregistration.k8s.io/*\"],"
          + "\"updatedBy\":null,\"updatedAt\":null,\"default\":true}";

  @TempDir Path tmp;
  final FakeHub hub = new FakeHub();

  @AfterEach
  void stop() {
    hub.close();
  }

  @BeforeEach
  void projects() {
    hub.answer(
        "GET /api/v2/projects", "{\"items\":[{\"id\":\"" + PROJECT + "\",\"name\":\"shop\"}]}");
  }

  Run.Result run(String... args) {
    return hub.run(tmp, args);
  }

  @Test
  void showsTheDefaultFenceSayingWhatEachEmptyListMeans() {
    hub.answer("GET " + FENCE, 200, DEFAULT);

    Run.Result r = run("projects", "fence", "shop");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("Fence:                 the default (no admin has set one)\n")
        .contains(
            "Allowed namespaces:    (empty: any namespace but kube-system, kube-public,"
                + " kube-node-lease, flux-system, argocd)\n")
        .contains(
            "Denied kinds:          rbac.authorization.k8s.io/*, admissionregistration.k8s.io/*\n")
        .doesNotContain("Changed:");
    assertThat(hub.received).isEmpty();
  }

  @Test
  void settingOneListKeepsTheOthersSoTheDefaultDenialsStay() {
    hub.answer("GET " + FENCE, 200, DEFAULT);
    hub.answer(
        "PUT " + FENCE,
        200,
        "{\"allowedNamespaces\":[\"shop-*\",\"payments\"],\"clusterScopedKinds\":[],"
            + "\"deniedKinds\":[\"rbac.authorization.k8s.io/*\","
            + "\"admissionregistration.k8s.io/*\"],\"updatedBy\":\"ada@example.com\","
            + "\"updatedAt\":\"2026-11-27T10:00:00Z\",\"default\":false,\"changed\":true,"
            + "\"revision\":7,\"commit\":\"0123abc\"}");

    Run.Result r =
        run(
            "projects",
            "fence",
            "shop",
            "--allow-namespace",
            "shop-*",
            "--allow-namespace",
            "payments");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("PUT " + FENCE).toString())
        .isEqualTo(
            "{\"allowedNamespaces\":[\"shop-*\",\"payments\"],\"clusterScopedKinds\":[],"
                + "\"deniedKinds\":[\"rbac.authorization.k8s.io/*\","
                + "\"admissionregistration.k8s.io/*\"]}");
    assertThat(r.out())
        .contains("Fence:                 set by ada@example.com at 2026-11-27T10:00:00Z\n")
        .contains("Allowed namespaces:    shop-*, payments\n")
        .contains("Changed:               yes\n")
        .contains("Config revision:       7\n");
  }

  @Test
  void anEmptyValueEmptiesItsList() {
    hub.answer(
        "GET " + FENCE,
        200,
        "{\"allowedNamespaces\":[\"shop-*\"],\"clusterScopedKinds\":[\"/Namespace\"],"
            + "\"deniedKinds\":[\"rbac.authorization.k8s.io/*\"],\"default\":false}");
    hub.answer("PUT " + FENCE, 200, DEFAULT.replace("true}", "false}"));

    Run.Result r =
        run("projects", "fence", "shop", "--deny-kind=", "--cluster-scoped-kind", "/Namespace");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("PUT " + FENCE).toString())
        .isEqualTo(
            "{\"allowedNamespaces\":[\"shop-*\"],\"clusterScopedKinds\":[\"/Namespace\"],"
                + "\"deniedKinds\":[]}");
  }

  @Test
  void theHubsRefusalNamesTheEntryAndMembersGetForbidden() {
    hub.answer("GET " + FENCE, 200, DEFAULT);
    hub.answer(
        "PUT " + FENCE,
        400,
        "{\"status\":400,\"error\":\"invalid\",\"message\":\"invalid request\","
            + "\"errors\":[{\"field\":\"allowedNamespaces[0]\","
            + "\"reason\":\"Bad_NS is not a namespace name or pattern\"}]}");

    Run.Result r = run("projects", "fence", "shop", "--allow-namespace", "Bad_NS");

    assertThat(r.code()).isEqualTo(ExitCode.ERROR);
    assertThat(r.err()).contains("allowedNamespaces[0]: Bad_NS is not a namespace name or pattern");

    hub.answer(
        "PUT " + FENCE,
        403,
        "{\"status\":403,\"error\":\"forbidden\",\"message\":\"needs projects:admin\"}");
    r = run("projects", "fence", "shop", "--deny-kind", "Secret");
    assertThat(r.code()).isEqualTo(ExitCode.FORBIDDEN);
    assertThat(r.err()).contains("needs projects:admin");
  }

  @Test
  void aPromotionRefusedBecauseTheReleaseIsDegradedSaysHowToBreakTheGlass() {
    hub.answer(
        "POST /api/v2/projects/" + PROJECT + "/releases/4/promote",
        409,
        "{\"status\":409,\"error\":\"conflict\",\"message\":\"release #4 is degraded in"
            + " staging: its commit was written but not every cluster ran it; promoting from"
            + " an unverified environment needs breakGlass with a justification\"}");

    Run.Result r = run("promote", "shop", "4");

    assertThat(r.code()).isEqualTo(ExitCode.CONFLICT);
    assertThat(r.err())
        .contains("release #4 is degraded in staging")
        .contains("(to promote it anyway: gitopshq promote shop 4 --break-glass JUSTIFICATION)");
  }
}

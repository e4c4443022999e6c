package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
  HttpServer server;

  /** The answer to "METHOD /path": its status and body. */
  final Map<String, Map.Entry<Integer, String>> answers = new ConcurrentHashMap<>();

  final Map<String, JsonNode> received = new ConcurrentHashMap<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        ex -> {
          String key = ex.getRequestMethod() + " " + ex.getRequestURI().getPath();
          byte[] body = ex.getRequestBody().readAllBytes();
          if (body.length > 0) {
            received.put(key, new ObjectMapper().readTree(body));
          }
          Map.Entry<Integer, String> answer =
              answers.getOrDefault(
                  key, Map.entry(404, "{\"status\":404,\"message\":\"no route\"}"));
          byte[] out = answer.getValue().getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(answer.getKey(), out.length);
          ex.getResponseBody().write(out);
          ex.close();
        });
    server.start();
    answers.put(
        "GET /api/v2/projects",
        Map.entry(200, "{\"items\":[{\"id\":\"" + PROJECT + "\",\"name\":\"shop\"}]}"));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  Run.Result run(String... args) {
    return new Run()
        .env("XDG_CONFIG_HOME", tmp.toString())
        .env("GITOPSHQ_SERVER", "http://127.0.0.1:" + server.getAddress().getPort())
        .env("GITOPSHQ_TOKEN", "ghqp_x")
        .run(args);
  }

  @Test
  void showsTheDefaultFenceSayingWhatEachEmptyListMeans() {
    answers.put("GET " + FENCE, Map.entry(200, DEFAULT));

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
    assertThat(received).isEmpty();
  }

  @Test
  void settingOneListKeepsTheOthersSoTheDefaultDenialsStay() {
    answers.put("GET " + FENCE, Map.entry(200, DEFAULT));
    answers.put(
        "PUT " + FENCE,
        Map.entry(
            200,
            "{\"allowedNamespaces\":[\"shop-*\",\"payments\"],\"clusterScopedKinds\":[],"
                + "\"deniedKinds\":[\"rbac.authorization.k8s.io/*\","
                + "\"admissionregistration.k8s.io/*\"],\"updatedBy\":\"ada@example.com\","
                + "\"updatedAt\":\"2026-11-27T10:00:00Z\",\"default\":false,\"changed\":true,"
                + "\"revision\":7,\"commit\":\"0123abc\"}"));

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
    assertThat(received.get("PUT " + FENCE).toString())
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
    answers.put(
        "GET " + FENCE,
        Map.entry(
            200,
            "{\"allowedNamespaces\":[\"shop-*\"],\"clusterScopedKinds\":[\"/Namespace\"],"
                + "\"deniedKinds\":[\"rbac.authorization.k8s.io/*\"],\"default\":false}"));
    answers.put("PUT " + FENCE, Map.entry(200, DEFAULT.replace("true}", "false}")));

    Run.Result r =
        run("projects", "fence", "shop", "--deny-kind=", "--cluster-scoped-kind", "/Namespace");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(received.get("PUT " + FENCE).toString())
        .isEqualTo(
            "{\"allowedNamespaces\":[\"shop-*\"],\"clusterScopedKinds\":[\"/Namespace\"],"
                + "\"deniedKinds\":[]}");
  }

  @Test
  void theHubsRefusalNamesTheEntryAndMembersGetForbidden() {
    answers.put("GET " + FENCE, Map.entry(200, DEFAULT));
    answers.put(
        "PUT " + FENCE,
        Map.entry(
            400,
            "{\"status\":400,\"error\":\"invalid\",\"message\":\"invalid request\","
                + "\"errors\":[{\"field\":\"allowedNamespaces[0]\","
                + "\"reason\":\"Bad_NS is not a namespace name or pattern\"}]}"));

    Run.Result r = run("projects", "fence", "shop", "--allow-namespace", "Bad_NS");

    assertThat(r.code()).isEqualTo(ExitCode.ERROR);
    assertThat(r.err()).contains("allowedNamespaces[0]: Bad_NS is not a namespace name or pattern");

    answers.put(
        "PUT " + FENCE,
        Map.entry(
            403, "{\"status\":403,\"error\":\"forbidden\",\"message\":\"needs projects:admin\"}"));
    r = run("projects", "fence", "shop", "--deny-kind", "Secret");
    assertThat(r.code()).isEqualTo(ExitCode.FORBIDDEN);
    assertThat(r.err()).contains("needs projects:admin");
  }

  @Test
  void aPromotionRefusedBecauseTheReleaseIsDegradedSaysHowToBreakTheGlass() {
    answers.put(
        "POST /api/v2/projects/" + PROJECT + "/releases/4/promote",
        Map.entry(
            409,
            "{\"status\":409,\"error\":\"conflict\",\"message\":\"release #4 is degraded in"
                + " staging: its commit was written but not every cluster ran it; promoting from"
                + " an unverified environment needs breakGlass with a justification\"}"));

    Run.Result r = run("promote", "shop", "4");

    assertThat(r.code()).isEqualTo(ExitCode.CONFLICT);
    assertThat(r.err())
        .contains("release #4 is degraded in staging")
        .contains("(to promote it anyway: gitopshq promote shop 4 --break-glass JUSTIFICATION)");
  }
}

package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gitopshq drift} against a fake hub that answers as the drift API does. */
class DriftCommandTest {
  static final String CLUSTER = "5b0c7a57-3d8e-4a43-9f3a-7a4e0f8b1c01";
  static final String FINDING = "0f7d7a57-3d8e-4a43-9f3a-7a4e0f8b1c02";

  @TempDir Path tmp;
  HttpServer hub;
  final List<String> requests = new CopyOnWriteArrayList<>();

  /** What GET …/checks/c-1 answers once the check finished. */
  volatile String finishedCheck =
      "{\"id\":\"c-1\",\"status\":\"completed\",\"objects\":4,\"drifted\":1,\"opened\":1,"
          + "\"resolved\":0,\"unknown\":0,\"notCompared\":[]}";

  /** The newest finished check in the findings list. */
  volatile String latestCheck = "null";

  static final String NOT_COMPARED =
      "\"notCompared\":[{\"object\":{\"group\":\"apps\",\"version\":\"v1\","
          + "\"kind\":\"Deployment\",\"namespace\":\"shop\",\"name\":\"api\"},"
          + "\"source\":{\"branch\":\"deploy/production\",\"path\":\"prod-eu/acme/api.yaml\"},"
          + "\"reason\":\"the API server answered 400: namespace not specified\"}]";

  @BeforeEach
  void start() throws IOException {
    hub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hub.createContext("/", this::answer);
    hub.start();
  }

  @AfterEach
  void stop() {
    hub.stop(0);
  }

  private void answer(HttpExchange x) throws IOException {
    String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String path = x.getRequestURI().getPath();
    String query = x.getRequestURI().getRawQuery();
    requests.add(
        x.getRequestMethod() + " " + path + (query == null ? "" : "?" + query) + " " + body);
    String base = "/api/v2/clusters/" + CLUSTER + "/drift";
    int status = 200;
    String json;
    if (path.equals("/api/v2/clusters")) {
      json = "{\"items\":[{\"id\":\"" + CLUSTER + "\",\"name\":\"prod-eu\"}]}";
    } else if (path.equals(base)) {
      json =
          "{\"items\":[{\"id\":\""
              + FINDING
              + "\",\"severity\":\"functional\",\"open\":true,\"differences\":1,"
              + "\"object\":{\"kind\":\"Deployment\",\"namespace\":\"shop\",\"name\":\"web\"},"
              + "\"firstDetectedAt\":\"2026-11-26T10:00:00Z\"}],\"nextCursor\":null,"
              + "\"latestCheck\":"
              + latestCheck
              + "}";
    } else if (path.equals(base + "/" + FINDING)) {
      json =
          "{\"id\":\""
              + FINDING
              + "\",\"severity\":\"functional\",\"state\":\"drifted\",\"open\":true,"
              + "\"differences\":[{\"path\":\"spec.replicas\",\"desired\":\"2\",\"live\":\"3\","
              + "\"severity\":\"functional\"}]}";
    } else if (path.equals(base + "/checks")) {
      status = 202;
      json = "{\"id\":\"c-1\",\"status\":\"pending\"}";
    } else if (path.equals(base + "/checks/c-1")) {
      json = finishedCheck;
    } else if (path.equals(base + "/" + FINDING + "/resolve")) {
      status = 202;
      json = "{\"id\":\"cmd-9\",\"status\":\"pending\"}";
    } else {
      status = 404;
      json = "{\"status\":404,\"error\":\"not_found\",\"message\":\"no route " + path + "\"}";
    }
    byte[] out = json.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().add("Content-Type", "application/json");
    x.sendResponseHeaders(status, out.length);
    x.getResponseBody().write(out);
    x.close();
  }

  Run.Result run(String... args) {
    return new Run()
        .env("XDG_CONFIG_HOME", tmp.toString())
        .env("GITOPSHQ_SERVER", "http://127.0.0.1:" + hub.getAddress().getPort())
        .env("GITOPSHQ_TOKEN", "ghqp_test")
        .run(args);
  }

  @Test
  void listSendsTheFiltersAndShowsTheFindings() {
    Run.Result r =
        run(
            "drift",
            "list",
            "prod-eu",
            "--severity",
            "functional",
            "--state",
            "open",
            "-n",
            "shop");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains(FINDING).contains("Deployment/shop/web").contains("open");
    assertThat(requests)
        .anyMatch(
            q ->
                q.startsWith(
                    "GET /api/v2/clusters/"
                        + CLUSTER
                        + "/drift?severity=functional&namespace=shop&state=open"));
  }

  @Test
  void listShowsTheObjectsTheNewestCheckDidNotCompareWithTheReason() {
    latestCheck =
        "{\"id\":\"c-0\",\"status\":\"completed\",\"objects\":4,\"drifted\":1,"
            + "\"unknown\":1,\"summary\":\"4 objects: 1 drifted, 1 not compared\","
            + NOT_COMPARED
            + "}";
    Run.Result r = run("drift", "list", "prod-eu");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("1 not compared by the newest check c-0")
        .contains("Deployment/shop/api")
        .contains("deploy/production:prod-eu/acme/api.yaml")
        .contains("the API server answered 400: namespace not specified");
  }

  @Test
  void getShowsTheFieldDiff() {
    Run.Result r = run("drift", "get", CLUSTER, FINDING);
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("spec.replicas").contains("functional");
  }

  @Test
  void checkWaitsForTheCheckToFinish() {
    Run.Result r = run("drift", "check", "prod-eu");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("completed");
    assertThat(requests)
        .anyMatch(q -> q.startsWith("POST /api/v2/clusters/" + CLUSTER + "/drift/checks"))
        .anyMatch(q -> q.startsWith("GET /api/v2/clusters/" + CLUSTER + "/drift/checks/c-1"));
  }

  @Test
  void aCheckThatDidNotCompareEveryObjectListsThemAndIsNotASuccess() {
    finishedCheck =
        "{\"id\":\"c-1\",\"status\":\"completed\",\"objects\":2,\"drifted\":0,\"opened\":0,"
            + "\"resolved\":0,\"unknown\":1,"
            + "\"summary\":\"2 objects: 0 drifted, 1 not compared\","
            + NOT_COMPARED
            + "}";
    Run.Result r = run("drift", "check", "prod-eu");
    assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.FAILED);
    assertThat(r.out())
        .contains("2 objects: 0 drifted, 1 not compared")
        .contains("Deployment/shop/api")
        .contains("the API server answered 400: namespace not specified");

    // -o json prints the check as the hub answered it.
    Run.Result json = run("drift", "check", "prod-eu", "-o", "json");
    assertThat(json.out()).contains("\"unknown\" : 1").doesNotContain("not compared by");
  }

  @Test
  void resolveAsksForTheGovernedCommandWithTheReason() {
    Run.Result r = run("drift", "resolve", "prod-eu", FINDING, "--reason", "hand-scaled");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("cmd-9").contains("pending");
    assertThat(requests)
        .anyMatch(
            q ->
                q.startsWith("POST /api/v2/clusters/" + CLUSTER + "/drift/" + FINDING + "/resolve")
                    && q.contains("\"reason\":\"hand-scaled\""));
  }

  @Test
  void resolveWithoutAReasonIsAUsageError() {
    assertThat(run("drift", "resolve", "prod-eu", FINDING).code()).isEqualTo(ExitCode.USAGE);
  }
}

package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gitopshq credentials} and {@code gitopshq clusters credentials} against a stand-in for the
 * hub's HTTP API that records what the CLI sends: values travel from files and stdin into the
 * request body, never from a flag, and the status table has the cluster page's columns.
 */
class CredentialsCommandTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String CRED_ID = "1b4e28ba-2fa1-11d2-883f-0016d3cca427";
  static final String CLUSTER_ID = "2c5f39cb-3fa1-11d2-883f-0016d3cca427";

  record Request(String method, String path, String body) {}

  final List<Request> requests = new CopyOnWriteArrayList<>();
  HttpServer server;
  @TempDir Path tmp;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        ex -> {
          String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          String path = ex.getRequestURI().getPath();
          requests.add(new Request(ex.getRequestMethod(), path, body));
          String answer =
              switch (ex.getRequestMethod() + " " + path) {
                case "GET /api/v2/clusters" ->
                    "{\"items\":[{\"id\":\"" + CLUSTER_ID + "\",\"name\":\"prod\"}]}";
                case "GET /api/v2/credentials" ->
                    "{\"items\":[{\"id\":\"" + CRED_ID + "\",\"name\":\"registry\"}]}";
                case "GET /api/v2/clusters/" + CLUSTER_ID + "/credentials" ->
                    "{\"items\":[{\"credentialId\":\""
                        + CRED_ID
                        + "\",\"name\":\"registry\",\"type\":\"dockerconfigjson\","
                        + "\"namespace\":\"apps\",\"status\":\"failed\",\"lastSyncedAt\":null,"
                        + "\"error\":\"namespace apps is outside the agent's"
                        + " credentialSync.targets\"},{\"credentialId\":\""
                        + CRED_ID
                        + "\",\"name\":\"registry\",\"type\":\"dockerconfigjson\","
                        + "\"namespace\":\"kube-system\",\"status\":\"failed\","
                        + "\"lastSyncedAt\":null,\"deniedByPolicy\":true,\"error\":\"denied by"
                        + " policy: namespaces matching kube-* get no credentials\"}]}";
                default ->
                    "{\"id\":\""
                        + CRED_ID
                        + "\",\"name\":\"registry\",\"type\":\"dockerconfigjson\",\"version\":1,"
                        + "\"keys\":[\".dockerconfigjson\"],\"targets\":[]}";
              };
          byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(ex.getRequestMethod().equals("POST") ? 201 : 200, bytes.length);
          ex.getResponseBody().write(bytes);
          ex.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  Run cli() {
    return new Run()
        .env("XDG_CONFIG_HOME", tmp.toString())
        .env("GITOPSHQ_SERVER", "http://127.0.0.1:" + server.getAddress().getPort())
        .env("GITOPSHQ_TOKEN", "ghqp_x");
  }

  Request last(String method) {
    return requests.stream()
        .filter(r -> r.method().equals(method))
        .reduce((a, b) -> b)
        .orElseThrow();
  }

  @Test
  void createReadsTheValueFromAFileAndNeverPrintsIt() throws IOException {
    Path file = tmp.resolve("config.json");
    Files.writeString(file, "{\"auths\":{\"r.example\":{\"password\":\"canary-secret\"}}}");
    Run.Result r =
        cli()
            .run(
                "credentials",
                "create",
                "registry",
                "--type",
                "dockerconfigjson",
                "--from-file",
                ".dockerconfigjson=" + file);
    assertThat(r.code()).as(r.toString()).isZero();
    JsonNode body = JSON.readTree(last("POST").body());
    assertThat(body.get("name").asText()).isEqualTo("registry");
    assertThat(body.get("type").asText()).isEqualTo("dockerconfigjson");
    assertThat(body.get("data").get(".dockerconfigjson").asText()).contains("canary-secret");
    assertThat(r.out() + r.err()).doesNotContain("canary-secret").contains(".dockerconfigjson");
  }

  @Test
  void updateReadsStdinAndAddressesTheCredentialByName() throws IOException {
    Run.Result r =
        cli()
            .stdin("new-token-value")
            .run("credentials", "update", "registry", "--from-file", "token=-");
    assertThat(r.code()).as(r.toString()).isZero();
    Request patch = last("PATCH");
    assertThat(patch.path()).isEqualTo("/api/v2/credentials/" + CRED_ID);
    assertThat(JSON.readTree(patch.body()).get("data").get("token").asText())
        .isEqualTo("new-token-value");
  }

  @Test
  void aValueCannotBeGivenAsAFlag() {
    Run.Result r =
        cli().run("credentials", "create", "x", "--type", "opaque", "--from-literal", "k=v");
    assertThat(r.code()).isEqualTo(ExitCode.USAGE);
    assertThat(requests).noneMatch(q -> q.method().equals("POST"));
  }

  @Test
  void assignSendsEveryClusterWithItsNamespaces() throws IOException {
    Run.Result r = cli().run("credentials", "assign", "registry", "--target", "prod=apps,payments");
    assertThat(r.code()).as(r.toString()).isZero();
    Request put = last("PUT");
    assertThat(put.path()).isEqualTo("/api/v2/credentials/" + CRED_ID + "/assignments");
    JsonNode a = JSON.readTree(put.body()).get("assignments").get(0);
    assertThat(a.get("clusterId").asText()).isEqualTo(CLUSTER_ID);
    assertThat(a.get("namespaces").toString()).isEqualTo("[\"apps\",\"payments\"]");

    Run.Result neither = cli().run("credentials", "assign", "registry");
    assertThat(neither.code()).isEqualTo(ExitCode.USAGE);
    assertThat(neither.err()).contains("--none");
  }

  @Test
  void theClusterStatusHasTheCredentialsTabColumns() {
    Run.Result r = cli().run("clusters", "credentials", "prod");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("CREDENTIAL", "TARGET NAMESPACE", "SYNC STATUS", "LAST SYNCED", "ERROR")
        .contains("registry (dockerconfigjson)", "apps", "failed", "credentialSync.targets");
    // A target the credentials policy denied says so, with the policy's reason.
    String denied =
        r.out().lines().filter(l -> l.contains("kube-system")).findFirst().orElseThrow();
    assertThat(denied)
        .contains("failed (denied by policy)")
        .contains("namespaces matching kube-* get no credentials");
    String apps = r.out().lines().filter(l -> l.contains(" apps ")).findFirst().orElseThrow();
    assertThat(apps).doesNotContain("denied by policy");
  }
}

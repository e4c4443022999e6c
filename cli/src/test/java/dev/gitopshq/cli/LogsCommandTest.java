package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gitopshq clusters logs} against a stub hub that streams its answer in pieces. */
class LogsCommandTest {
  static final String CLUSTER = "6f1c9a52-0a7e-4f34-9d55-0a5d3c6c2b10";
  @TempDir Path tmp;
  HttpServer server;
  final List<String> queries = new CopyOnWriteArrayList<>();
  final List<String> auth = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/api/v2/clusters/" + CLUSTER + "/logs",
        ex -> {
          queries.add(ex.getRequestURI().getRawQuery());
          auth.add(ex.getRequestHeaders().getFirst("Authorization"));
          if (ex.getRequestURI().getQuery().contains("namespace=secret")) {
            byte[] body =
                "{\"status\":403,\"error\":\"forbidden\",\"message\":\"namespace secret is outside the agent's diagnostics.allowedNamespaces (demo)\"}"
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(403, body.length);
            ex.getResponseBody().write(body);
            ex.close();
            return;
          }
          ex.getResponseHeaders().add("Content-Type", "text/plain;charset=UTF-8");
          ex.sendResponseHeaders(200, 0);
          try (OutputStream out = ex.getResponseBody()) {
            for (int i = 0; i < 3; i++) {
              out.write(("line " + i + " é\n").getBytes(StandardCharsets.UTF_8));
              out.flush();
              Thread.sleep(50);
            }
            out.write(
                "\n[gitopshq] log session ended: no log line for 600 s; the session was ended\n"
                    .getBytes(StandardCharsets.UTF_8));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
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
        .env("GITOPSHQ_TOKEN", "ghqp_" + "a".repeat(64));
  }

  @Test
  void streamsTheLogToStdoutWithEveryOptionInTheQuery() {
    Run.Result r =
        cli()
            .run(
                "clusters",
                "logs",
                CLUSTER,
                "-n",
                "demo",
                "web-1",
                "-c",
                "app",
                "-f",
                "--tail",
                "50",
                "--since",
                "10m",
                "--timestamps",
                "--previous");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "line 0 é\nline 1 é\nline 2 é\n\n[gitopshq] log session ended: no log line for 600 s;"
                + " the session was ended\n");
    assertThat(queries)
        .containsExactly(
            "namespace=demo&pod=web-1&container=app&tailLines=50&sinceSeconds=600"
                + "&timestamps=true&previous=true&follow=true");
    assertThat(auth).containsExactly("Bearer ghqp_" + "a".repeat(64));
  }

  @Test
  void aDownloadLeavesFollowOut() {
    Run.Result r = cli().run("clusters", "logs", CLUSTER, "--namespace", "demo", "web-1");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(queries).containsExactly("namespace=demo&pod=web-1");
  }

  @Test
  void aRefusalIsTheHubsMessageAndTheForbiddenExitCode() {
    Run.Result r = cli().run("clusters", "logs", CLUSTER, "-n", "secret", "web-1");
    assertThat(r.code()).isEqualTo(ExitCode.FORBIDDEN);
    assertThat(r.err()).contains("outside the agent's diagnostics.allowedNamespaces");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void aMalformedSinceIsAUsageError() {
    Run.Result r = cli().run("clusters", "logs", CLUSTER, "-n", "demo", "web-1", "--since", "ten");
    assertThat(r.code()).isEqualTo(ExitCode.USAGE);
    assertThat(r.err()).contains("--since");
    assertThat(queries).isEmpty();
  }
}

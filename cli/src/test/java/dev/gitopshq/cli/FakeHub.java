package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A stand-in for the hub's REST API on a loopback port: it answers each {@code METHOD /path} as the
 * test says (404 otherwise) and keeps the JSON body of every request, so a test runs the real
 * command line against it and checks what it sent and printed.
 */
final class FakeHub implements AutoCloseable {
  /** The answer to "METHOD /path": its status and body. */
  final Map<String, Map.Entry<Integer, String>> answers = new ConcurrentHashMap<>();

  /** The body of the last request to "METHOD /path". */
  final Map<String, JsonNode> received = new ConcurrentHashMap<>();

  private final HttpServer server;

  FakeHub() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
  }

  /** Answers {@code key} ("METHOD /path") with 200 and {@code body}. */
  void answer(String key, String body) {
    answer(key, 200, body);
  }

  void answer(String key, int status, String body) {
    answers.put(key, Map.entry(status, body));
  }

  /** Runs the command line against this hub, its configuration under {@code config}. */
  Run.Result run(Path config, String... args) {
    return new Run()
        .env("XDG_CONFIG_HOME", config.toString())
        .env("GITOPSHQ_SERVER", "http://127.0.0.1:" + server.getAddress().getPort())
        .env("GITOPSHQ_TOKEN", "ghqp_x")
        .run(args);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

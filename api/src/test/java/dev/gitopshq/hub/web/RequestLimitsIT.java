package dev.gitopshq.hub.web;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bodies are bounded before they are read, per route, and JSON is strict: oversized bodies get 413
 * in the documented error shape (declared or chunked), deep or duplicate-keyed JSON and values of
 * the wrong type get 400 naming what is wrong, and nothing is written.
 */
class RequestLimitsIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static HubTestSupport hub;
  static String base;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
    base = "http://127.0.0.1:" + hub.context().getEnvironment().getProperty("local.server.port");
  }

  static long clusters(String name) {
    return HubTestSupport.count("select count(*) from clusters where name = ?", name);
  }

  static void assertTooLarge(int status, String body, String limit) throws Exception {
    assertThat(status).isEqualTo(413);
    var json = JSON.readTree(body);
    assertThat(json.get("status").asInt()).isEqualTo(413);
    assertThat(json.get("error").asText()).isEqualTo("payload_too_large");
    assertThat(json.get("message").asText()).contains(limit);
  }

  @Test
  void theUnauthenticatedWebhookRefusesABodyOverItsLimitWithoutReadingIt() throws Exception {
    String big = "{\"x\":\"" + "a".repeat(1024 * 1024) + "\"}";
    Response r = hub.send("POST", "/api/v2/webhooks/image-update", null, big);
    assertTooLarge(r.status(), r.raw(), "256 KiB");
  }

  @Test
  void aChunkedBodyWithoutALengthIsCutAtTheLimit() throws Exception {
    byte[] big = ("{\"name\":\"" + "a".repeat(5 * 1024 * 1024) + "\"}").getBytes();
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/api/v2/clusters"))
                    .header("Authorization", "Bearer " + OWNER_TOKEN)
                    .header("Content-Type", "application/json")
                    // ofInputStream sends no Content-Length: the body arrives chunked.
                    .POST(
                        HttpRequest.BodyPublishers.ofInputStream(
                            () -> new ByteArrayInputStream(big)))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertTooLarge(r.statusCode(), r.body(), "4 MiB");
  }

  @Test
  void aJsonBodyOverTheLimitIsRefusedAndNothingIsWritten() throws Exception {
    String name = "big-" + UUID.randomUUID().toString().substring(0, 8);
    String body =
        "{\"name\":\"" + name + "\",\"displayName\":\"" + "x".repeat(5 * 1024 * 1024) + "\"}";
    Response r = hub.send("POST", "/api/v2/clusters", OWNER_TOKEN, body);
    assertTooLarge(r.status(), r.raw(), "4 MiB");
    assertThat(clusters(name)).isZero();
  }

  @Test
  void valuesOfTheWrongTypeAreRefusedNotCoerced() {
    Response r = hub.send("POST", "/api/v2/clusters", OWNER_TOKEN, "{\"name\": 123}");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().get("errors").get(0).get("field").asText()).isEqualTo("name");
    assertThat(clusters("123")).isZero();

    Response labels =
        hub.post(
            "/api/v2/clusters",
            OWNER_TOKEN,
            Map.of(
                "name",
                "typed-" + UUID.randomUUID().toString().substring(0, 8),
                "labels",
                Map.of("tier", 1)));
    assertThat(labels.status()).isEqualTo(400);
    assertThat(labels.body().get("errors").get(0).get("field").asText()).startsWith("labels");
  }

  @Test
  void aKeyGivenTwiceIsRefused() {
    String name = "dup-" + UUID.randomUUID().toString().substring(0, 8);
    Response r =
        hub.send(
            "POST",
            "/api/v2/clusters",
            OWNER_TOKEN,
            "{\"name\": \"" + name + "\", \"name\": \"" + name + "-2\"}");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().get("message").asText()).contains("Duplicate field \"name\"");
    assertThat(clusters(name) + clusters(name + "-2")).isZero();
  }

  @Test
  void nestingBeyondTheLimitIsRefused() {
    // A policy dry run takes any JSON as its input: nothing but the bound stops the nesting.
    String deep = "{\"input\":" + "{\"a\":".repeat(200) + "1" + "}".repeat(200) + "}";
    Response r = hub.send("POST", "/api/v2/policies/approval/evaluate", OWNER_TOKEN, deep);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().get("errors").get(0).get("field").asText()).isEqualTo("body");
    assertThat(r.body().get("message").asText()).contains("too deep or too long");
  }

  @Test
  void aKustomizeBaseWithAnAliasBombIsRefusedNamingTheFileAndNothingIsStored() {
    StringBuilder bomb =
        new StringBuilder("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int i = 1; i <= 9; i++) {
      bomb.append('a').append(i).append(": &a").append(i).append(" [");
      for (int j = 0; j < 10; j++) {
        bomb.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
      }
      bomb.append("]\n");
    }
    String name = "bomb-" + UUID.randomUUID().toString().substring(0, 8);
    Response r =
        hub.post(
            "/api/v2/kustomize-bases",
            OWNER_TOKEN,
            Map.of(
                "name",
                name,
                "files",
                Map.of(
                    "kustomization.yaml", "resources:\n- cm.yaml\n", "cm.yaml", bomb.toString())));

    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().get("errors").get(0).get("field").asText()).isEqualTo("files.cm.yaml");
    assertThat(r.body().get("errors").get(0).get("reason").asText())
        .isEqualTo("uses YAML aliases (*a5 at line 7); at most 50 are allowed");
    assertThat(HubTestSupport.count("select count(*) from kustomize_bases where name = ?", name))
        .isZero();
  }

  @Test
  void timesBeyondWhatCanBeStoredAre400NamingTheField() {
    String far = "%2B300000-01-01T00:00:00Z";
    Response audit = hub.get("/api/v2/audit?from=" + far, OWNER_TOKEN);
    assertThat(audit.status()).isEqualTo(400);
    assertThat(audit.body().get("errors").get(0).get("field").asText()).isEqualTo("from");

    String cluster =
        hub.post(
                "/api/v2/clusters",
                OWNER_TOKEN,
                Map.of("name", "when-" + UUID.randomUUID().toString().substring(0, 8)))
            .body()
            .get("cluster")
            .get("id")
            .asText();
    Response commands = hub.get("/api/v2/clusters/" + cluster + "/commands?to=" + far, OWNER_TOKEN);
    assertThat(commands.status()).isEqualTo(400);
    assertThat(commands.body().get("errors").get(0).get("field").asText()).isEqualTo("to");

    Response freeze =
        hub.post(
            "/api/v2/freeze-windows",
            OWNER_TOKEN,
            Map.of(
                "startsAt",
                "2026-12-01T00:00:00Z",
                "endsAt",
                "+300000-01-01T00:00:00Z",
                "reason",
                "far"));
    assertThat(freeze.status()).isEqualTo(400);
    assertThat(freeze.body().get("errors").get(0).get("field").asText()).isEqualTo("endsAt");
  }

  @Test
  void namesThatReadDifferentlyFromWhatTheyAreAreRefused() {
    for (String name :
        java.util.List.of(
            "prod\u202e-ue",
            "admin\u200b",
            "\u2066ops\u2069",
            "ops\u061c",
            "ad\u00admin",
            "a\u2028b",
            "\u3164",
            "ops\udb40\udc41")) {
      Response r =
          hub.post(
              "/api/v2/clusters",
              OWNER_TOKEN,
              Map.of(
                  "name",
                  "vis-" + UUID.randomUUID().toString().substring(0, 8),
                  "displayName",
                  name));
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.body().get("errors").get(0).get("field").asText()).isEqualTo("displayName");
      assertThat(r.body().get("errors").get(0).get("reason").asText())
          .isEqualTo(
              "must not contain invisible, bidirectional-control or line-separator characters");
    }
    Response member =
        hub.post(
            "/api/v2/members",
            OWNER_TOKEN,
            Map.of(
                "email",
                "bidi-" + UUID.randomUUID() + "@example.com",
                "name",
                "Eve\u202e",
                "role",
                "viewer"));
    assertThat(member.status()).isEqualTo(400);
    assertThat(member.body().get("errors").get(0).get("field").asText()).isEqualTo("name");
  }

  @Test
  void theFirewallsRefusalsHaveTheApisErrorShape() throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/api/v2/clusters;x=1"))
                    .header("Authorization", "Bearer " + OWNER_TOKEN)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(400);
    var json = JSON.readTree(r.body());
    assertThat(json.get("status").asInt()).isEqualTo(400);
    assertThat(json.get("error").asText()).isEqualTo("invalid_request");
  }

  /** Sends raw bytes (HttpClient refuses to send what Tomcat must refuse) and reads the answer. */
  static String raw(String request) throws Exception {
    URI u = URI.create(base);
    try (java.net.Socket socket = new java.net.Socket(u.getHost(), u.getPort())) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write(request.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      return new String(
          socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  @Test
  void whatTomcatRefusesBeforeTheApiAnswersInTheApisErrorShape() throws Exception {
    for (String request :
        List.of(
            "GET /api/v2/clusters/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /api/v2/a|b<script> HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /api/v2/clusters HTTP/1.1\r\nHost: x\r\nX-Big: "
                + "a".repeat(40_000)
                + "\r\nConnection: close\r\n\r\n",
            "GET /api/v2/clusters HTTP/1.1\r\nHost: x\r\nBad Header: y\r\nConnection: close\r\n\r\n")) {
      String answer = raw(request);
      String head = answer.substring(0, Math.max(0, answer.indexOf("\r\n\r\n")));
      String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
      assertThat(head).as(request.substring(0, 40)).startsWith("HTTP/1.1 4");
      assertThat(head.toLowerCase(java.util.Locale.ROOT))
          .contains("content-type: application/json");
      var json = JSON.readTree(body.substring(body.indexOf('{')));
      assertThat(json.get("status").asInt()).isBetween(400, 499);
      assertThat(json.get("error").asText()).isNotBlank();
      assertThat(body).doesNotContain("<html").doesNotContain("script").doesNotContain("zz");
    }
  }
}

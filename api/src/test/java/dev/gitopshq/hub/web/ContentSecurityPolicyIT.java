package dev.gitopshq.hub.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.hub.HubTestSupport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The UI's pages and files, and the API's answers, carry a strict Content-Security-Policy: a script
 * that slipped into a page (a name, a log line) would not run, and no other site may frame the UI.
 */
class ContentSecurityPolicyIT {
  static HubTestSupport hub;
  static String base;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    hub = new HubTestSupport().start();
    base = "http://127.0.0.1:" + hub.context().getEnvironment().getProperty("local.server.port");
  }

  @AfterAll
  static void stop() {
    hub.close();
  }

  static String csp(String path) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + path)).header("Accept", "text/html").build(),
            HttpResponse.BodyHandlers.ofString());
    return r.headers().firstValue("Content-Security-Policy").orElse("");
  }

  @Test
  void theUiAndTheApiAnswerWithAStrictContentSecurityPolicy() throws Exception {
    for (String path :
        List.of("/", "/index.html", "/clusters/0d4c/commands", "/api/v2/auth/config", "/error")) {
      String csp = csp(path);
      assertThat(Arrays.stream(csp.split(";")).map(String::trim).toList())
          .as(path)
          .contains(
              "default-src 'self'",
              "script-src 'self'",
              "object-src 'none'",
              "base-uri 'none'",
              "frame-ancestors 'none'",
              "connect-src 'self'",
              "img-src 'self' data:");
      assertThat(csp)
          .as(path)
          .doesNotContain("unsafe-eval")
          .doesNotContain("script-src 'self' 'unsafe-inline'")
          .doesNotContain("*");
    }
    if (ContentSecurityPolicyIT.class.getResource("/static/index.html") != null) {
      // With the UI built into the jar, "/" is the UI's page itself under that policy.
      HttpResponse<String> index =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(base + "/")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(index.statusCode()).isEqualTo(200);
      assertThat(index.body()).contains("<div id=\"root\">").doesNotContain("<script>");
    }
  }
}

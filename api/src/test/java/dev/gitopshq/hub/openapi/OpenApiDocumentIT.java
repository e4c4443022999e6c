package dev.gitopshq.hub.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.hub.HubTestSupport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document a real hub serves, and the committed copy {@code docs/openapi.yaml} that
 * must equal it. {@code make openapi} (or {@code -Dopenapi.write=true}, or {@code
 * GITOPSHQ_OPENAPI_WRITE=1}) rewrites the copy from the running hub instead of comparing.
 */
class OpenApiDocumentIT {
  static HubTestSupport hub;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
  }

  @Test
  void committedDocumentEqualsTheServedOne() throws IOException, InterruptedException {
    String port = hub.context().getEnvironment().getProperty("local.server.port");
    HttpResponse<String> served =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v3/api-docs.yaml"))
                    .build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    assertThat(served.statusCode()).isEqualTo(200);
    String document = served.body().endsWith("\n") ? served.body() : served.body() + "\n";
    Path committed = repositoryRoot().resolve("docs/openapi.yaml");
    if (Boolean.getBoolean("openapi.write")
        || "1".equals(System.getenv("GITOPSHQ_OPENAPI_WRITE"))) {
      Files.writeString(committed, document, StandardCharsets.UTF_8);
      return;
    }
    String current =
        Files.exists(committed) ? Files.readString(committed, StandardCharsets.UTF_8) : "";
    if (!current.equals(document)) {
      fail(
          "docs/openapi.yaml differs from the document the hub serves at /v3/api-docs.yaml"
              + " (first difference at line "
              + firstDifferentLine(current, document)
              + "); regenerate it with 'make openapi' and commit it");
    }
  }

  @Test
  void servedWithoutATokenWhileTheApiStillNeedsOne() {
    HubTestSupport.Response docs = hub.get("/v3/api-docs", null);
    assertThat(docs.status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/clusters", null).status()).isEqualTo(401);
    assertThat(hub.get("/api/v2/clusters", HubTestSupport.OWNER_TOKEN).status()).isEqualTo(200);
    assertThat(docs.body().at("/servers/0/url").asText()).isEqualTo("/");
  }

  @Test
  void describesTheBearerTokenAndTheErrorBody() {
    JsonNode docs = hub.get("/v3/api-docs", null).body();
    assertThat(docs.at("/components/securitySchemes/bearerToken/scheme").asText())
        .isEqualTo("bearer");
    assertThat(docs.at("/security/0").has("bearerToken")).isTrue();
    JsonNode listClusters = docs.at("/paths/~1api~1v2~1clusters/get");
    assertThat(listClusters.at("/responses/401/$ref").asText())
        .isEqualTo("#/components/responses/Unauthorized");
    assertThat(
            docs.at("/components/responses/Unauthorized/content/application~1json/schema/$ref")
                .asText())
        .isEqualTo("#/components/schemas/ApiError");
    List<String> required = new ArrayList<>();
    docs.at("/components/schemas/ApiError/required").forEach(r -> required.add(r.asText()));
    assertThat(required).containsExactlyInAnyOrder("status", "error", "message");
    // The sign-in configuration is public, and the document says so.
    assertThat(docs.at("/paths/~1api~1v2~1auth~1config/get/security").isEmpty()).isTrue();
    assertThat(hub.get("/api/v2/auth/config", null).status()).isEqualTo(200);
    // The body a caller without a token really gets has the documented required fields.
    JsonNode unauthorized = hub.get("/api/v2/clusters", null).body();
    for (JsonNode field : docs.at("/components/schemas/ApiError/required")) {
      assertThat(unauthorized.has(field.asText())).as(field.asText()).isTrue();
    }
  }

  @Test
  void operationIdsAreUnique() {
    JsonNode paths = hub.get("/v3/api-docs", null).body().get("paths");
    List<String> ids = new ArrayList<>();
    paths.forEach(item -> item.forEach(op -> ids.add(op.path("operationId").asText())));
    assertThat(ids)
        .doesNotHaveDuplicates()
        .allMatch(id -> !id.isEmpty() && !id.matches(".*_\\d+$"));
  }

  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("docs/api.md"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("no docs/api.md above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }

  private static int firstDifferentLine(String a, String b) {
    String[] x = a.split("\n", -1);
    String[] y = b.split("\n", -1);
    int i = 0;
    while (i < x.length && i < y.length && x[i].equals(y[i])) {
      i++;
    }
    return i + 1;
  }
}

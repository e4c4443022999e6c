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
import java.util.Locale;
import java.util.Map;
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

  /**
   * A request body's schema marks as required exactly the fields whose absence the server answers
   * with a 400 naming them: an empty body to each of these operations is refused naming just the
   * required fields of the schema the document gives for it.
   */
  @Test
  void requestBodiesRequireWhatTheServerRefusesWithout() {
    JsonNode docs = hub.get("/v3/api-docs", null).body();
    String[][] operations = {
      {"POST", "/api/v2/clusters"},
      {"PUT", "/api/v2/clusters/acceptance"},
      {"POST", "/api/v2/projects"},
      {"POST", "/api/v2/environments"},
      {"POST", "/api/v2/tenants"},
      {"POST", "/api/v2/grants"}
    };
    for (String[] op : operations) {
      String ref =
          docs.path("paths")
              .path(op[1])
              .path(op[0].toLowerCase(Locale.ROOT))
              .at("/requestBody/content/application~1json/schema/$ref")
              .asText();
      assertThat(ref).as(op[0] + " " + op[1]).startsWith("#/components/schemas/");
      List<String> required = texts(docs.at(ref.substring(1) + "/required"));
      assertThat(required).as(ref).isNotEmpty();
      HubTestSupport.Response refused =
          hub.send(op[0], op[1], HubTestSupport.OWNER_TOKEN, Map.of());
      assertThat(refused.status()).as(refused.raw()).isEqualTo(400);
      List<String> named = new ArrayList<>();
      refused.body().path("errors").forEach(e -> named.add(e.path("field").asText()));
      assertThat(named).as(op[0] + " " + op[1]).containsExactlyInAnyOrderElementsOf(required);
    }
  }

  @Test
  void nestedRequestSchemasRequireTheirMandatoryFields() {
    JsonNode schemas = hub.get("/v3/api-docs", null).body().path("components").path("schemas");
    assertThat(texts(schemas.at("/CommandRequests.Create/required")))
        .containsExactlyInAnyOrder("type", "target");
    assertThat(texts(schemas.at("/CommandRequests.Target/required")))
        .containsExactlyInAnyOrder("namespace", "name");
    assertThat(texts(schemas.at("/Rollback/required")))
        .containsExactlyInAnyOrder("toRelease", "scope");
    assertThat(texts(schemas.at("/CreateOrg/required")))
        .containsExactlyInAnyOrder("slug", "name", "owner");
    assertThat(texts(schemas.at("/Requirement/required")))
        .containsExactlyInAnyOrder("key", "operator");
    // A field that is optional stays so: a release may be cut without a description.
    assertThat(schemas.at("/ReleaseRequests.Create/required").isMissingNode()).isTrue();
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
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

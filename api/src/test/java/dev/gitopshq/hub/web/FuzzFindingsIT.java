package dev.gitopshq.hub.web;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requests Schemathesis (tools/fuzz.sh) found answered with a 500 or the wrong status: each is the
 * caller's mistake and gets a 4xx in the API's error shape.
 */
class FuzzFindingsIT {
  static HubTestSupport hub;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
  }

  @Test
  void theErrorPathAskedForDirectlyIsNotFoundNotAServerError() {
    for (String token : new String[] {null, OWNER_TOKEN}) {
      Response r = hub.send("GET", "/error", token, null, Map.of());
      assertThat(r.status()).as(r.raw()).isEqualTo(404);
      assertThat(r.body().get("error").asText()).isEqualTo("not_found");
    }
    // A request that really fails still gets its own status through the container's error path.
    Response bad =
        hub.send(
            "DELETE",
            "/api/v2/environments/nothing-here",
            OWNER_TOKEN,
            null,
            Map.of("Content-Type", "multipart/form-data"));
    assertThat(bad.status()).isEqualTo(400);
  }

  @Test
  void aKindScopeWithoutAValueIsABadRequestNamingIt() {
    for (String path : new String[] {"/workloads", "/bindings"}) {
      Map<String, Object> scopes = new java.util.HashMap<>();
      scopes.put("example.com/Widget", null);
      Response r =
          hub.post(
              "/api/v2/projects/" + UUID.randomUUID() + path,
              OWNER_TOKEN,
              Map.of("name", "w", "kindScopes", scopes));
      assertThat(r.status()).as(r.raw()).isEqualTo(400);
      assertThat(r.raw()).contains("kindScopes.example.com/Widget");
    }
  }

  @Test
  void multipartWithoutABoundaryIsABadRequest() {
    Response r =
        hub.send(
            "DELETE",
            "/api/v2/environments/nothing-here",
            OWNER_TOKEN,
            null,
            Map.of("Content-Type", "multipart/form-data"));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().at("/errors/0/field").asText()).isEqualTo("Content-Type");
  }

  @Test
  void aBlankUuidInThePathIsABadRequestNamingIt() {
    Response r = hub.get("/api/v2/projects/%09/variables", OWNER_TOKEN);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().at("/errors/0/field").asText()).isEqualTo("id");
    assertThat(
            hub.send("DELETE", "/api/v2/projects/%1C/deploy-tokens/x", OWNER_TOKEN, null).status())
        .isEqualTo(400);
  }

  @Test
  void aNulCharacterInTextIsABadRequest() {
    Response r =
        hub.post(
            "/api/v2/freeze-windows",
            OWNER_TOKEN,
            Map.of(
                "environment",
                "dev\u0000",
                "startsAt",
                "2030-01-01T00:00:00Z",
                "endsAt",
                "2030-01-02T00:00:00Z",
                "reason",
                "fuzz"));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().get("error").asText()).isEqualTo("invalid_request");
  }

  @Test
  void aBrokenlyEncodedCookieIsABadRequest() {
    Response r =
        hub.send(
            "GET",
            "/api/v2/auth/oidc/callback?code=c&state=s",
            null,
            null,
            Map.of("Cookie", "gitopshq_oidc_state=%u~Qi"));
    assertThat(r.status()).isEqualTo(400);
    assertThat(
            hub.send(
                    "GET",
                    "/api/v2/auth/oidc/callback?code=c&state=s",
                    null,
                    null,
                    Map.of("Cookie", "gitopshq_oidc_state=abc%"))
                .status())
        .isEqualTo(400);
  }

  @Test
  void aMethodTheRouteDoesNotServeIs405WithAllow() throws Exception {
    var r =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(
                            "http://127.0.0.1:"
                                + hub.context().getEnvironment().getProperty("local.server.port")
                                + "/api/v2/notifications"))
                    .header("Authorization", "Bearer " + OWNER_TOKEN)
                    .method("PATCH", java.net.http.HttpRequest.BodyPublishers.noBody())
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().firstValue("Allow").orElse("")).contains("GET").contains("PUT");
  }

  @Test
  void aNullInAnApprovalPolicyListIsABadRequestNamingIt() {
    String id =
        hub.post(
                "/api/v2/clusters",
                OWNER_TOKEN,
                Map.of(
                    "name",
                    "null-policy-" + java.util.UUID.randomUUID().toString().substring(0, 8)))
            .body()
            .at("/cluster/id")
            .asText();
    Response r =
        hub.send(
            "PUT",
            "/api/v2/clusters/" + id + "/approval-policy",
            OWNER_TOKEN,
            "{\"requireApproval\":[null],\"approverRoles\":[null]}");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().get("errors").findValuesAsText("field"))
        .contains("requireApproval[0]", "approverRoles[0]");
  }

  @Test
  void aCommandWithoutATypeIsABadRequestNamingIt() {
    Response r =
        hub.post(
            "/api/v2/clusters/" + java.util.UUID.randomUUID() + "/commands",
            OWNER_TOKEN,
            Map.of("target", Map.of("name", "demo-app", "kind", "Namespace")));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body().get("errors").findValuesAsText("field")).contains("type");
  }

  @Test
  void traceIsMethodNotAllowed() {
    Response r = hub.send("TRACE", "/api/v2/clusters", OWNER_TOKEN, null);
    assertThat(r.status()).isEqualTo(405);
    assertThat(r.body().get("error").asText()).isEqualTo("method_not_allowed");
  }

  @Test
  void aGetOfTheDriftChecksCollectionIs405NotAFindingIdOfTheWrongFormat() {
    // Schemathesis ST204: only POST serves …/drift/checks; a GET used to reach the finding route
    // and answer 400 "findingId: has the wrong format".
    Response r =
        hub.get("/api/v2/clusters/" + java.util.UUID.randomUUID() + "/drift/checks", OWNER_TOKEN);
    assertThat(r.status()).isEqualTo(405);
    assertThat(r.body().get("error").asText()).isEqualTo("method_not_allowed");
  }

  @Test
  void aPatchOrDeleteOfTheClustersOwnWordsIs405NotAClusterIdOfTheWrongFormat() {
    // Schemathesis ST204: PATCH /clusters/acceptance and /clusters/selector-preview reached the
    // cluster route and answered 400 "id: has the wrong format".
    for (String path :
        List.of("/api/v2/clusters/acceptance", "/api/v2/clusters/selector-preview")) {
      for (String method : List.of("PATCH", "DELETE")) {
        Response r = hub.send(method, path, OWNER_TOKEN, method.equals("PATCH") ? Map.of() : null);
        assertThat(r.status()).as(method + " " + path).isEqualTo(405);
        assertThat(r.body().get("error").asText()).isEqualTo("method_not_allowed");
      }
    }
    // A malformed cluster id is still a 400 naming it.
    Response bad = hub.send("PATCH", "/api/v2/clusters/not-a-uuid", OWNER_TOKEN, Map.of());
    assertThat(bad.status()).isEqualTo(400);
  }
}

package dev.gitopshq.hub.member;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Members, roles, API tokens and service accounts with scoped tokens. */
class PeopleApiIT {
  static HubTestSupport hub;

  @BeforeAll
  static void start() {
    hub = new HubTestSupport().start();
  }

  @AfterAll
  static void stop() {
    hub.close();
  }

  static String email(String who) {
    return who + "-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
  }

  static String memberWithToken(String role) {
    Response m =
        hub.post(
            "/api/v2/members",
            OWNER_TOKEN,
            Map.of("email", email(role), "name", role, "role", role));
    assertThat(m.status()).isEqualTo(201);
    Response t =
        hub.post(
            "/api/v2/members/" + m.body().get("id").asText() + "/tokens",
            OWNER_TOKEN,
            Map.of("name", "t"));
    assertThat(t.status()).isEqualTo(201);
    return t.body().get("token").asText();
  }

  @Test
  void theBootstrapOwnerExistsAndTokensAreStoredOnlyAsHashes() {
    Response members = hub.get("/api/v2/members", OWNER_TOKEN);
    assertThat(members.status()).isEqualTo(200);
    assertThat(members.body().get("items").findValuesAsText("role")).contains("owner");

    String token = memberWithToken("member");
    assertThat(token).matches("ghqp_[0-9a-f]{64}");
    assertThat(
            HubTestSupport.count(
                "select count(*) from api_tokens where token_hash = ?", Tokens.sha256Hex(token)))
        .isEqualTo(1);
    assertThat(
            HubTestSupport.count(
                "select count(*) from api_tokens where token_hash = ? or name = ?", token, token))
        .isZero();
    assertThat(hub.get("/api/v2/clusters", token).status()).isEqualTo(200);
  }

  @Test
  void meSaysWhoTheCallerIsAndWhatTheTokenMayDo() {
    String viewer = memberWithToken("viewer");
    Response me = hub.get("/api/v2/me", viewer);
    assertThat(me.status()).isEqualTo(200);
    assertThat(me.body().get("type").asText()).isEqualTo("member");
    assertThat(me.body().get("role").asText()).isEqualTo("viewer");
    List<String> permissions = new java.util.ArrayList<>();
    me.body().get("permissions").forEach(p -> permissions.add(p.asText()));
    assertThat(permissions)
        .contains("clusters:read")
        .doesNotContain("clusters:write", "audit:read");
    assertThat(hub.get("/api/v2/me", "ghqp_" + "0".repeat(64)).status()).isEqualTo(401);
  }

  @Test
  void rolesDecideWhatACallerMayDo() {
    String admin = memberWithToken("admin");
    String viewer = memberWithToken("viewer");

    // An admin manages members but cannot create an owner.
    assertThat(
            hub.post(
                    "/api/v2/members",
                    admin,
                    Map.of("email", email("x"), "name", "X", "role", "member"))
                .status())
        .isEqualTo(201);
    Response ownerByAdmin =
        hub.post(
            "/api/v2/members", admin, Map.of("email", email("o"), "name", "O", "role", "owner"));
    assertThat(ownerByAdmin.status()).isEqualTo(403);

    // A viewer reads but changes nothing, and each refusal names the permission.
    Response byViewer =
        hub.post(
            "/api/v2/members", viewer, Map.of("email", email("y"), "name", "Y", "role", "viewer"));
    assertThat(byViewer.status()).isEqualTo(403);
    assertThat(byViewer.body().get("message").asText()).contains("members:write");
    assertThat(hub.get("/api/v2/members", viewer).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/audit", viewer).status()).isEqualTo(403);
    assertThat(hub.get("/api/v2/audit", admin).status()).isEqualTo(200);
  }

  @Test
  void memberRequestsAreValidated() {
    Response bad =
        hub.post(
            "/api/v2/members",
            OWNER_TOKEN,
            Map.of("email", "not-an-email", "name", "", "role", "king"));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body().get("errors").findValuesAsText("field"))
        .containsExactlyInAnyOrder("email", "name", "role");

    String e = email("dup");
    assertThat(
            hub.post(
                    "/api/v2/members",
                    OWNER_TOKEN,
                    Map.of("email", e, "name", "A", "role", "viewer"))
                .status())
        .isEqualTo(201);
    assertThat(
            hub.post(
                    "/api/v2/members",
                    OWNER_TOKEN,
                    Map.of("email", e, "name", "B", "role", "admin"))
                .status())
        .isEqualTo(409);
    assertThat(
            hub.post(
                    "/api/v2/members/" + UUID.randomUUID() + "/tokens",
                    OWNER_TOKEN,
                    Map.of("name", "t"))
                .status())
        .isEqualTo(404);
  }

  @Test
  void serviceAccountTokensCarryOnlyTheirScopes() {
    String name = "ci-" + UUID.randomUUID().toString().substring(0, 8);
    Response sa =
        hub.post(
            "/api/v2/service-accounts",
            OWNER_TOKEN,
            Map.of(
                "name",
                name,
                "description",
                "release pipeline",
                "scopes",
                List.of("clusters:read")));
    assertThat(sa.status()).isEqualTo(201);
    Response token =
        hub.post(
            "/api/v2/service-accounts/" + sa.body().get("id").asText() + "/tokens",
            OWNER_TOKEN,
            Map.of("name", "gha"));
    assertThat(token.status()).isEqualTo(201);
    String ci = token.body().get("token").asText();
    assertThat(ci).matches("ghqs_[0-9a-f]{64}");

    assertThat(hub.get("/api/v2/clusters", ci).status()).isEqualTo(200);
    Response write = hub.post("/api/v2/clusters", ci, Map.of("name", "from-ci"));
    assertThat(write.status()).isEqualTo(403);
    assertThat(write.body().get("message").asText()).contains("clusters:write");

    // A token cannot exceed its account's scopes, and unknown scopes are refused.
    assertThat(
            hub.post(
                    "/api/v2/service-accounts/" + sa.body().get("id").asText() + "/tokens",
                    OWNER_TOKEN,
                    Map.of("name", "wide", "scopes", List.of("clusters:write")))
                .status())
        .isEqualTo(400);
    Response unknown =
        hub.post(
            "/api/v2/service-accounts",
            OWNER_TOKEN,
            Map.of("name", "x-" + name, "scopes", List.of("root")));
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.body().get("errors").get(0).get("field").asText()).isEqualTo("scopes[0]");

    assertThat(
            hub.get("/api/v2/service-accounts", OWNER_TOKEN)
                .body()
                .get("items")
                .findValuesAsText("name"))
        .contains(name);
    // The listing of tokens never includes a token value.
    Response tokens =
        hub.get(
            "/api/v2/service-accounts/" + sa.body().get("id").asText() + "/tokens", OWNER_TOKEN);
    assertThat(tokens.raw()).doesNotContain(ci).contains("gha");
  }

  @Test
  void anExpiredTokenIsRefused() {
    Response m =
        hub.post(
            "/api/v2/members",
            OWNER_TOKEN,
            Map.of("email", email("exp"), "name", "E", "role", "viewer"));
    String token =
        hub.post(
                "/api/v2/members/" + m.body().get("id").asText() + "/tokens",
                OWNER_TOKEN,
                Map.of("name", "short", "expiresInDays", 1))
            .body()
            .get("token")
            .asText();
    assertThat(hub.get("/api/v2/members", token).status()).isEqualTo(200);
    HubTestSupport.exec(
        "update api_tokens set expires_at = now() - interval '1 second' where token_hash = ?",
        Tokens.sha256Hex(token));
    assertThat(hub.get("/api/v2/members", token).status()).isEqualTo(401);
  }
}

package dev.gitopshq.hub.member;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Members, roles, API tokens and service accounts with scoped tokens. */
class PeopleApiIT {
  static HubTestSupport hub;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
  }

  static String email(String who) {
    return who + "-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
  }

  static String memberWithToken(String role) {
    return hub.memberToken(role);
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
    // A change made in the database, not through this hub, reaches its authentication cache as
    // PostgreSQL's notification: within milliseconds, bounded here by a second.
    Instant deadline = Instant.now().plusSeconds(1);
    while (hub.get("/api/v2/members", token).status() != 401 && Instant.now().isBefore(deadline)) {
      Thread.onSpinWait();
    }
    assertThat(hub.get("/api/v2/members", token).status()).isEqualTo(401);
  }

  static String memberId(String token) {
    return hub.get("/api/v2/me", token).body().get("id").asText();
  }

  @Test
  void aMemberListsAndRevokesTheirOwnTokensAndARevokedTokenStopsAtOnce() {
    String first = memberWithToken("member");
    String me = memberId(first);
    Response second =
        hub.post("/api/v2/members/" + me + "/tokens", first, Map.of("name", "laptop"));
    assertThat(second.status()).isEqualTo(201);
    String laptop = second.body().get("token").asText();
    assertThat(hub.get("/api/v2/clusters", laptop).status()).isEqualTo(200);

    Response list = hub.get("/api/v2/members/" + me + "/tokens", first);
    assertThat(list.status()).isEqualTo(200);
    assertThat(list.body().get("items").findValuesAsText("name")).containsExactly("t", "laptop");
    assertThat(list.body().get("items").findValuesAsText("status")).containsOnly("active");
    // Last use is kept; the token value never comes back.
    assertThat(list.body().get("items").get(1).get("lastUsedAt").isNull()).isFalse();
    assertThat(list.raw()).doesNotContain(laptop).doesNotContain(first);

    String laptopId = second.body().get("id").asText();
    Response revoked =
        hub.send("DELETE", "/api/v2/members/" + me + "/tokens/" + laptopId, first, null);
    assertThat(revoked.status()).isEqualTo(200);
    assertThat(revoked.body().get("status").asText()).isEqualTo("revoked");
    assertThat(revoked.body().get("revokedBy").asText()).isEqualTo(me);
    assertThat(hub.get("/api/v2/clusters", laptop).status()).isEqualTo(401);
    assertThat(hub.get("/api/v2/clusters", first).status()).isEqualTo(200);
    // Revoking again changes nothing; a token of someone else under this member is a 404.
    assertThat(
            hub.send("DELETE", "/api/v2/members/" + me + "/tokens/" + laptopId, first, null)
                .status())
        .isEqualTo(200);
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where action = 'member.token.revoked'"
                    + " and target_id = ?",
                me))
        .isEqualTo(1);
  }

  @Test
  void membersSeeOnlyTheirOwnTokensUnlessTheyManageMembers() {
    String member = memberWithToken("member");
    String other = memberWithToken("viewer");
    String otherId = memberId(other);
    Response peek = hub.get("/api/v2/members/" + otherId + "/tokens", member);
    assertThat(peek.status()).isEqualTo(403);
    assertThat(peek.body().get("message").asText()).contains("members:write");
    String tokenId =
        hub.get("/api/v2/members/" + otherId + "/tokens", OWNER_TOKEN)
            .body()
            .get("items")
            .get(0)
            .get("id")
            .asText();
    assertThat(
            hub.send("DELETE", "/api/v2/members/" + otherId + "/tokens/" + tokenId, member, null)
                .status())
        .isEqualTo(403);
    assertThat(hub.get("/api/v2/members", other).status()).isEqualTo(200);
    // An admin revokes it; it stops at the next request.
    String admin = memberWithToken("admin");
    assertThat(
            hub.send("DELETE", "/api/v2/members/" + otherId + "/tokens/" + tokenId, admin, null)
                .status())
        .isEqualTo(200);
    assertThat(hub.get("/api/v2/members", other).status()).isEqualTo(401);
  }

  @Test
  void aTokenCannotClaimScopesBeyondItsMembersRole() {
    String viewer = memberWithToken("viewer");
    Response wide =
        hub.post(
            "/api/v2/members/" + memberId(viewer) + "/tokens",
            viewer,
            Map.of("name", "wide", "scopes", List.of("clusters:read", "clusters:write")));
    assertThat(wide.status()).isEqualTo(400);
    assertThat(wide.body().get("errors").get(0).get("field").asText()).isEqualTo("scopes[1]");
    assertThat(wide.body().get("errors").get(0).get("reason").asText()).contains("viewer role");
    // Nothing was stored.
    assertThat(
            HubTestSupport.count(
                "select count(*) from api_tokens where name = 'wide' and member_id = ?::uuid",
                memberId(viewer)))
        .isZero();
    // An admin cannot mint it for the viewer either; a narrowing token is fine.
    assertThat(
            hub.post(
                    "/api/v2/members/" + memberId(viewer) + "/tokens",
                    OWNER_TOKEN,
                    Map.of("name", "wide", "scopes", List.of("audit:read")))
                .status())
        .isEqualTo(400);
    Response narrow =
        hub.post(
            "/api/v2/members/" + memberId(viewer) + "/tokens",
            viewer,
            Map.of("name", "narrow", "scopes", List.of("clusters:read")));
    assertThat(narrow.status()).isEqualTo(201);
    String t = narrow.body().get("token").asText();
    assertThat(hub.get("/api/v2/clusters", t).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/members", t).status()).isEqualTo(403);
  }

  @Test
  void removingAMemberRevokesTheirTokensAndTheLastOwnerStays() {
    String member = memberWithToken("member");
    String id = memberId(member);
    String viewer = memberWithToken("viewer");
    assertThat(hub.send("DELETE", "/api/v2/members/" + id, viewer, null).status()).isEqualTo(403);
    String admin = memberWithToken("admin");
    assertThat(hub.send("DELETE", "/api/v2/members/" + id, admin, null).status()).isEqualTo(204);
    assertThat(hub.get("/api/v2/clusters", member).status()).isEqualTo(401);
    assertThat(hub.get("/api/v2/members", OWNER_TOKEN).raw()).doesNotContain(id);
    assertThat(hub.send("DELETE", "/api/v2/members/" + id, admin, null).status()).isEqualTo(404);
    assertThat(
            HubTestSupport.count(
                "select count(*) from api_tokens where member_id = ?::uuid and revoked_at is null",
                id))
        .isZero();
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where action = 'member.removed' and target_id = ?",
                id))
        .isEqualTo(1);

    // An admin cannot remove an owner; an owner cannot remove the last owner.
    String ownerId = memberId(OWNER_TOKEN);
    assertThat(hub.send("DELETE", "/api/v2/members/" + ownerId, admin, null).status())
        .isEqualTo(403);
    long owners =
        HubTestSupport.count(
            "select count(*) from members where role = 'owner' and removed_at is null"
                + " and org_id = (select org_id from members where id = ?::uuid)",
            ownerId);
    if (owners == 1) {
      Response last = hub.send("DELETE", "/api/v2/members/" + ownerId, OWNER_TOKEN, null);
      assertThat(last.status()).isEqualTo(409);
      assertThat(last.body().get("message").asText()).contains("last owner");
    }
    assertThat(hub.get("/api/v2/members", OWNER_TOKEN).status()).isEqualTo(200);
  }

  @Test
  void aServiceAccountCanBeNarrowedDisabledAndItsTokensRevoked() {
    String name = "deployer-" + UUID.randomUUID().toString().substring(0, 8);
    String sa =
        hub.post(
                "/api/v2/service-accounts",
                OWNER_TOKEN,
                Map.of("name", name, "scopes", List.of("clusters:read", "members:read")))
            .body()
            .get("id")
            .asText();
    Response issued =
        hub.post("/api/v2/service-accounts/" + sa + "/tokens", OWNER_TOKEN, Map.of("name", "ci"));
    String ci = issued.body().get("token").asText();
    assertThat(hub.get("/api/v2/members", ci).status()).isEqualTo(200);

    // Narrowing the account narrows the token at once.
    Response narrowed =
        hub.patch(
            "/api/v2/service-accounts/" + sa,
            OWNER_TOKEN,
            Map.of("scopes", List.of("clusters:read")));
    assertThat(narrowed.status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/members", ci).status()).isEqualTo(403);
    assertThat(hub.get("/api/v2/clusters", ci).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/me", ci).body().get("permissions").toString())
        .doesNotContain("members:read");

    // Disabled: every token refused; enabled again: back.
    assertThat(
            hub.patch("/api/v2/service-accounts/" + sa, OWNER_TOKEN, Map.of("disabled", true))
                .body()
                .get("disabled")
                .asBoolean())
        .isTrue();
    assertThat(hub.get("/api/v2/clusters", ci).status()).isEqualTo(401);
    assertThat(
            hub.post("/api/v2/service-accounts/" + sa + "/tokens", OWNER_TOKEN, Map.of("name", "x"))
                .status())
        .isEqualTo(409);
    hub.patch("/api/v2/service-accounts/" + sa, OWNER_TOKEN, Map.of("disabled", false));
    assertThat(hub.get("/api/v2/clusters", ci).status()).isEqualTo(200);

    // Revoked: gone for good.
    Response rv =
        hub.send(
            "DELETE",
            "/api/v2/service-accounts/" + sa + "/tokens/" + issued.body().get("id").asText(),
            OWNER_TOKEN,
            null);
    assertThat(rv.status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/clusters", ci).status()).isEqualTo(401);
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where target_id = ? and action in"
                    + " ('service_account.updated', 'service_account.token.revoked')",
                sa))
        .isEqualTo(4);

    // A viewer cannot change it; a bad scope or an unknown owner is a 400 naming the field.
    String viewer = memberWithToken("viewer");
    assertThat(
            hub.patch("/api/v2/service-accounts/" + sa, viewer, Map.of("disabled", true)).status())
        .isEqualTo(403);
    Response bad =
        hub.patch(
            "/api/v2/service-accounts/" + sa,
            OWNER_TOKEN,
            Map.of("scopes", List.of("root"), "description", "x"));
    assertThat(bad.body().get("errors").get(0).get("field").asText()).isEqualTo("scopes[0]");
    Response owner =
        hub.patch(
            "/api/v2/service-accounts/" + sa,
            OWNER_TOKEN,
            Map.of("ownerId", UUID.randomUUID().toString()));
    assertThat(owner.status()).isEqualTo(400);
    assertThat(owner.body().get("errors").get(0).get("field").asText()).isEqualTo("ownerId");
  }
}

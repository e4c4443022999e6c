package dev.gitopshq.hub.sso;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.HubTestSupport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * SSO against a real OpenID Connect provider (the development provider, Spring Authorization
 * Server, as a child JVM): the browser's authorization code flow with PKCE driven through the
 * provider's login form, the device flow approved on the provider's verification page, group
 * mapping, refused tokens, and sign-out.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SsoIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CALLBACK = "/api/v2/auth/oidc/callback";

  /** The web UI's random state of a sign-in, as it sends it to the hub. */
  private static final String UI_STATE = "ui-state-0123456789_abcdefghij";

  private static final String LOGIN = "/api/v2/auth/oidc/login?client_state=" + UI_STATE;

  private final HttpClient http = HttpClient.newHttpClient();
  private DevIdp idp;
  private DevIdp otherIdp;
  private HubTestSupport hub;
  private int hubPort;

  @BeforeAll
  void start() {
    hubPort = DevIdp.freePort();
    int idpPort = DevIdp.freePort();
    List<String> users = new ArrayList<>();
    user(users, 0, "demo", "demo-pass", List.of("platform-admins"));
    user(users, 1, "lee", "lee-pass", List.of("developers"));
    user(users, 2, "dev", "dev-pass", List.of("developers", "unmapped"));
    user(users, 3, "outsider", "outsider-pass", List.of("contractors"));
    // Claims the address of an existing admin, without the provider verifying it.
    String m = "--idp.users[4].";
    users.addAll(
        List.of(
            m + "username=mallory",
            m + "password=mallory-pass",
            m + "email=kim@example.com",
            m + "name=Mallory",
            m + "groups[0]=developers"));
    List<String> args = new ArrayList<>(users);
    args.addAll(
        List.of(
            "--idp.clients[0].id=gitopshq-ui",
            "--idp.clients[0].grant=authorization_code",
            "--idp.clients[0].redirect-uris[0]=http://127.0.0.1:" + hubPort + CALLBACK,
            "--idp.clients[1].id=gitopshq-cli",
            "--idp.clients[1].grant=device_code",
            // Another application of the same provider: its tokens are not for the hub.
            "--idp.clients[2].id=other-app",
            "--idp.clients[2].grant=device_code",
            "--idp.clients[3].id=short-cli",
            "--idp.clients[3].grant=device_code",
            "--idp.clients[3].access-token-ttl=4s"));
    idp = DevIdp.start(idpPort, args);
    List<String> otherArgs = new ArrayList<>(users);
    otherArgs.addAll(
        List.of("--idp.clients[0].id=gitopshq-cli", "--idp.clients[0].grant=device_code"));
    otherIdp = DevIdp.start(DevIdp.freePort(), otherArgs);
    hub =
        new HubTestSupport()
            .property("server.port", hubPort)
            .property("gitopshq.oidc.issuer", idp.issuer())
            .property("gitopshq.oidc.client-id", "gitopshq-ui")
            .property("gitopshq.oidc.cli-client-id", "gitopshq-cli")
            .property("gitopshq.oidc.audiences", "gitopshq-cli,short-cli")
            .property("gitopshq.oidc.redirect-uri", "http://127.0.0.1:" + hubPort + CALLBACK)
            .property("gitopshq.oidc.clock-skew", "0s")
            .property("gitopshq.oidc.group-mappings[0].group", "platform-admins")
            .property("gitopshq.oidc.group-mappings[0].role", "admin")
            .property("gitopshq.oidc.group-mappings[0].teams[0]", "platform")
            .property("gitopshq.oidc.group-mappings[1].group", "developers")
            .property("gitopshq.oidc.group-mappings[1].role", "viewer")
            .property("gitopshq.oidc.group-mappings[1].teams[0]", "web")
            .start();
    // lee is a member before SSO: the first sign-in links the account and applies the mapping.
    assertThat(
            hub.post(
                    "/api/v2/members",
                    OWNER_TOKEN,
                    Map.of(
                        "email",
                        "lee@example.com",
                        "name",
                        "Lee",
                        "role",
                        "member",
                        "teams",
                        List.of()))
                .status())
        .isEqualTo(201);
    assertThat(
            hub.post(
                    "/api/v2/members",
                    OWNER_TOKEN,
                    Map.of("email", "kim@example.com", "name", "Kim", "role", "admin"))
                .status())
        .isEqualTo(201);
    idp.awaitReady();
    otherIdp.awaitReady();
  }

  private static void user(
      List<String> args, int i, String name, String password, List<String> groups) {
    String p = "--idp.users[" + i + "].";
    args.add(p + "username=" + name);
    args.add(p + "password=" + password);
    args.add(p + "email=" + name + "@example.com");
    args.add(p + "name=" + name.toUpperCase());
    args.add(p + "email-verified=true");
    for (int g = 0; g < groups.size(); g++) {
      args.add(p + "groups[" + g + "]=" + groups.get(g));
    }
  }

  @AfterAll
  void stop() {
    if (hub != null) {
      hub.close();
    }
    if (idp != null) {
      idp.close();
    }
    if (otherIdp != null) {
      otherIdp.close();
    }
  }

  // ---- the browser: authorization code flow with PKCE ----------------------------------------

  @Test
  void browserSignInWithPkceGivesAnAdminSessionFromTheGroupMapping() {
    Browser browser = new Browser();
    Browser.Page callback = toCallback(browser, "demo", "demo-pass");
    Browser.Page done = browser.get(callback.next());

    assertThat(done.status()).isEqualTo(302);
    assertThat(done.location()).startsWith("/#session_token=ghqo_");
    Map<String, String> fragment = Browser.params(URI.create(done.location()).getRawFragment());
    String session = fragment.get("session_token");
    assertThat(session).matches("ghqo_[0-9a-f]{64}");
    // The UI's state of the sign-in comes back with the session: the UI keeps a session only for
    // a sign-in its tab started (issue 26, N3).
    assertThat(fragment).containsEntry("client_state", UI_STATE);
    // Only the hash is stored.
    assertThat(
            HubTestSupport.count(
                "select count(*) from member_sessions where token_hash = ?",
                Tokens.sha256Hex(session)))
        .isEqualTo(1);

    JsonNode me = member("demo@example.com");
    assertThat(me.get("role").asText()).isEqualTo("admin");
    assertThat(me.get("teams").get(0).asText()).isEqualTo("platform");
    // An admin may read the audit log; the provisioning is in it, naming the mapped group.
    HubTestSupport.Response audit =
        hub.get(
            "/api/v2/audit?action=member.sso_provisioned&target=" + me.get("id").asText(), session);
    assertThat(audit.status()).isEqualTo(200);
    JsonNode entry = audit.body().get("items").get(0);
    assertThat(entry.get("details").get("role").asText()).isEqualTo("admin");
    assertThat(entry.get("details").get("groups").get(0).asText()).isEqualTo("platform-admins");
    assertThat(entry.get("actor").get("id").asText()).isEqualTo("sso");
  }

  @Test
  void theMappingIsAppliedAgainAtEverySignInAndSessionsFollowTheCurrentRole() {
    Browser browser = new Browser();
    Browser.Page done = browser.get(toCallback(browser, "demo", "demo-pass").next());
    String session =
        Browser.params(URI.create(done.location()).getRawFragment()).get("session_token");
    String id = member("demo@example.com").get("id").asText();
    assertThat(hub.get("/api/v2/audit", session).status()).isEqualTo(200);

    // An owner lowers demo to viewer in the hub: the open session acts as a viewer at once.
    assertThat(hub.patch("/api/v2/members/" + id, OWNER_TOKEN, Map.of("role", "viewer")).status())
        .isEqualTo(200);
    assertThat(hub.get("/api/v2/audit", session).status()).isEqualTo(403);

    // The next sign-in applies the group mapping again (admin), and audits the change.
    Browser again = new Browser();
    String next =
        Browser.params(
                URI.create(again.get(toCallback(again, "demo", "demo-pass").next()).location())
                    .getRawFragment())
            .get("session_token");
    assertThat(member("demo@example.com").get("role").asText()).isEqualTo("admin");
    assertThat(hub.get("/api/v2/audit", next).status()).isEqualTo(200);
    JsonNode applied =
        hub.get("/api/v2/audit?action=member.sso_mapping_applied&target=" + id, OWNER_TOKEN)
            .body()
            .get("items")
            .get(0);
    assertThat(applied.get("details").get("role").get("from").asText()).isEqualTo("viewer");
    assertThat(applied.get("details").get("role").get("to").asText()).isEqualTo("admin");
    assertThat(applied.get("actor").get("type").asText()).isEqualTo("system");
  }

  @Test
  void theLoginRedirectCarriesStateNonceAndAnS256Challenge() {
    Browser browser = new Browser();
    Browser.Page login = browser.get(hubUri(LOGIN));
    assertThat(login.status()).isEqualTo(302);
    URI to = login.next();
    assertThat(to.toString()).startsWith(idp.issuer() + "/oauth2/authorize?");
    Map<String, String> q = Browser.params(to.getRawQuery());
    assertThat(q)
        .containsEntry("response_type", "code")
        .containsEntry("client_id", "gitopshq-ui")
        .containsEntry("code_challenge_method", "S256")
        .containsEntry("redirect_uri", "http://127.0.0.1:" + hubPort + CALLBACK);
    assertThat(q.get("state")).hasSize(43);
    assertThat(q.get("nonce")).hasSize(43).isNotEqualTo(q.get("state"));
    assertThat(q.get("code_challenge")).hasSize(43);
    assertThat(browser.hasCookie(AuthController.STATE_COOKIE)).isTrue();
    // The UI's state stays between the UI and the hub: the provider never sees it.
    assertThat(to.toString()).doesNotContain(UI_STATE);
  }

  @Test
  void aSignInWithoutAUsableUiStateIsRefused() {
    Browser.Page none = new Browser().get(hubUri("/api/v2/auth/oidc/login"));
    assertThat(none.status()).isEqualTo(400);
    assertThat(none.body()).contains("client_state").contains("is required");
    Browser.Page bad = new Browser().get(hubUri("/api/v2/auth/oidc/login?client_state=short"));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body()).contains("client_state");
  }

  @Test
  void aWrongCodeVerifierFailsAtTheProvider() {
    Browser browser = new Browser();
    Browser.Page callback = toCallback(browser, "demo", "demo-pass");
    String state = Browser.params(callback.next().getRawQuery()).get("state");
    // Replace the verifier the hub kept for this sign-in: the provider must refuse the code.
    String stateHash = Tokens.sha256Hex(state);
    byte[] wrong =
        hub.bean(SecretBox.class)
            .seal(
                "a-different-verifier-of-43-characters-xxxxx".getBytes(StandardCharsets.US_ASCII),
                SsoLogin.verifierContext(stateHash));
    HubTestSupport.exec(
        "update oidc_logins set code_verifier = ? where state_hash = ?", wrong, stateHash);
    long sessions = HubTestSupport.count("select count(*) from member_sessions");

    Browser.Page done = browser.get(callback.next());

    assertThat(done.status()).isEqualTo(401);
    assertThat(done.body()).contains("invalid_grant");
    assertThat(HubTestSupport.count("select count(*) from member_sessions")).isEqualTo(sessions);
  }

  @Test
  void anIdTokenWithoutTheSignInsNonceIsRefused() {
    Browser browser = new Browser();
    Browser.Page callback = toCallback(browser, "demo", "demo-pass");
    String state = Browser.params(callback.next().getRawQuery()).get("state");
    // The provider puts the nonce of the authorization request into the ID token; a sign-in
    // expecting another one (a replayed or injected ID token) must not get a session.
    HubTestSupport.exec(
        "update oidc_logins set nonce = 'another-nonce' where state_hash = ?",
        Tokens.sha256Hex(state));
    long sessions = HubTestSupport.count("select count(*) from member_sessions");

    Browser.Page done = browser.get(callback.next());

    assertThat(done.status()).isEqualTo(401);
    assertThat(done.body()).contains("ID token is not valid");
    assertThat(HubTestSupport.count("select count(*) from member_sessions")).isEqualTo(sessions);
  }

  @Test
  void aCallbackFromAnotherBrowserOrUsedTwiceIsRefused() {
    Browser browser = new Browser();
    Browser.Page callback = toCallback(browser, "demo", "demo-pass");
    // Another browser (no state cookie) is handed the callback URL: login CSRF.
    Browser.Page stranger = new Browser().get(callback.next());
    assertThat(stranger.status()).isEqualTo(400);
    assertThat(stranger.body()).contains("state");

    assertThat(browser.get(callback.next()).status()).isEqualTo(302);
    // The same callback again, even with the browser's state cookie: each sign-in is used once.
    URI again = callback.next();
    String state = Browser.params(again.getRawQuery()).get("state");
    HubTestSupport.Response replay =
        hub.send(
            "GET",
            again.getRawPath() + "?" + again.getRawQuery(),
            null,
            null,
            Map.of("Cookie", AuthController.STATE_COOKIE + "=" + state));
    assertThat(replay.status()).isEqualTo(400);
    assertThat(replay.raw()).contains("used or expired");
  }

  @Test
  void aFloodOfUnfinishedSignInsIsRefusedAtTheCap() {
    HubTestSupport.exec(
        "insert into oidc_logins (state_hash, org_id, nonce, code_verifier, created_at, expires_at)"
            + " select md5(g::text) || md5(g::text), (select id from organizations where slug = 'default'),"
            + " 'n', '\\x00'::bytea, now(), now() + interval '10 minutes'"
            + " from generate_series(1, ?) g",
        (int) SsoLogin.MAX_PENDING_LOGINS);
    try {
      Browser.Page refused = new Browser().get(hubUri(LOGIN));
      assertThat(refused.status()).isEqualTo(429);
      assertThat(refused.body()).contains("too many sign-ins");
    } finally {
      HubTestSupport.exec("delete from oidc_logins where nonce = 'n'");
    }
    assertThat(new Browser().get(hubUri(LOGIN)).status()).isEqualTo(302);
  }

  @Test
  void oneAddressHoldsAtMostTwentyPendingSignInsForThreeMinutesAndOthersStillSignIn() {
    HubTestSupport.exec("delete from oidc_logins");
    // Another address has filled its share: this one still signs in.
    HubTestSupport.exec(
        "insert into oidc_logins (state_hash, org_id, nonce, code_verifier, created_at, expires_at,"
            + " client_address)"
            + " select md5(g::text) || md5(g::text), (select id from organizations where slug = 'default'),"
            + " 'flood', '\\x00'::bytea, now(), now() + interval '3 minutes', '203.0.113.7'"
            + " from generate_series(1, ?) g",
        (int) SsoLogin.MAX_PENDING_PER_ADDRESS);
    try {
      assertThat(new Browser().get(hubUri(LOGIN)).status()).isEqualTo(302);
      // A pending sign-in lives 3 minutes, not 10.
      assertThat(
              HubTestSupport.count(
                  "select extract(epoch from expires_at - created_at)::bigint from oidc_logins"
                      + " where nonce <> 'flood'"))
          .isEqualTo(180);
      // This address may start 20; the 21st is refused while other addresses are not.
      for (int i = 1; i < SsoLogin.MAX_PENDING_PER_ADDRESS; i++) {
        assertThat(new Browser().get(hubUri(LOGIN)).status()).isEqualTo(302);
      }
      Browser.Page refused = new Browser().get(hubUri(LOGIN));
      assertThat(refused.status()).isEqualTo(429);
      assertThat(refused.body()).contains("too many sign-ins in progress from your address");
      assertThat(HubTestSupport.count("select count(*) from oidc_logins where nonce <> 'flood'"))
          .isEqualTo(SsoLogin.MAX_PENDING_PER_ADDRESS);
      // Once this address's sign-ins expire, it may start again.
      HubTestSupport.exec(
          "update oidc_logins set expires_at = now() - interval '1 second' where nonce <> 'flood'");
      assertThat(new Browser().get(hubUri(LOGIN)).status()).isEqualTo(302);
    } finally {
      HubTestSupport.exec("delete from oidc_logins");
    }
  }

  @Test
  void aUserInNoMappedGroupIsRefused() {
    Browser browser = new Browser();
    Browser.Page done = browser.get(toCallback(browser, "outsider", "outsider-pass").next());
    assertThat(done.status()).isEqualTo(403);
    assertThat(done.body()).contains("none of your groups");
    assertThat(
            HubTestSupport.count(
                "select count(*) from members where email = 'outsider@example.com'"))
        .isZero();
  }

  @Test
  void anUnverifiedEmailDoesNotTakeOverAnExistingMember() {
    Browser browser = new Browser();
    Browser.Page done = browser.get(toCallback(browser, "mallory", "mallory-pass").next());
    assertThat(done.status()).isEqualTo(403);
    assertThat(done.body()).contains("email_verified");
    assertThat(
            HubTestSupport.count(
                "select count(*) from members where email = 'kim@example.com' and oidc_subject is null"
                    + " and role = 'admin'"))
        .isEqualTo(1);
    assertThat(
            HubTestSupport.count(
                "select count(*) from member_sessions s join members m on m.id = s.member_id"
                    + " where m.email = 'kim@example.com'"))
        .isZero();
  }

  // ---- the command line: device flow ----------------------------------------------------------

  @Test
  void deviceFlowSignInLinksTheMemberAndMapsTheViewerRole() throws Exception {
    Device device = authorize(idp, "gitopshq-cli");
    HttpResponse<String> pending = poll(idp, "gitopshq-cli", device);
    assertThat(pending.statusCode()).isEqualTo(400);
    assertThat(pending.body()).contains("authorization_pending");

    approve(idp, device, "lee", "lee-pass");
    String accessToken = accessToken(poll(idp, "gitopshq-cli", device));

    HubTestSupport.Response exchanged =
        hub.post("/api/v2/auth/oidc/token", null, Map.of("accessToken", accessToken));
    assertThat(exchanged.status()).isEqualTo(201);
    String session = exchanged.body().get("token").asText();
    assertThat(session).startsWith("ghqo_");
    assertThat(exchanged.body().get("member").get("email").asText()).isEqualTo("lee@example.com");
    assertThat(exchanged.body().get("member").get("role").asText()).isEqualTo("viewer");

    // Viewer and admin differ: a viewer reads clusters but not the audit log, nor adds members.
    assertThat(hub.get("/api/v2/clusters", session).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/audit", session).status()).isEqualTo(403);
    assertThat(
            hub.post(
                    "/api/v2/members",
                    session,
                    Map.of("email", "x@example.com", "name", "X", "role", "viewer"))
                .status())
        .isEqualTo(403);

    // The existing member was linked, and the role change at sign-in is audited.
    String leeId = member("lee@example.com").get("id").asText();
    JsonNode items = hub.get("/api/v2/audit?target=" + leeId, OWNER_TOKEN).body().get("items");
    assertThat(items.findValuesAsText("action"))
        .contains("member.sso_linked", "member.sso_mapping_applied", "member.signed_in");
    JsonNode applied = entry(items, "member.sso_mapping_applied");
    assertThat(applied.get("details").get("role").get("from").asText()).isEqualTo("member");
    assertThat(applied.get("details").get("role").get("to").asText()).isEqualTo("viewer");
    assertThat(applied.get("details").get("teams").get("to").get(0).asText()).isEqualTo("web");
    assertThat(member("lee@example.com").get("teams").get(0).asText()).isEqualTo("web");
  }

  /** Signs lee in through the device flow: the session token. */
  String signInLee() {
    Device device = authorize(idp, "gitopshq-cli");
    approve(idp, device, "lee", "lee-pass");
    String accessToken = accessToken(poll(idp, "gitopshq-cli", device));
    HubTestSupport.Response exchanged =
        hub.post("/api/v2/auth/oidc/token", null, Map.of("accessToken", accessToken));
    assertThat(exchanged.status()).as(exchanged.raw()).isEqualTo(201);
    return exchanged.body().get("token").asText();
  }

  @Test
  void groupTeamsAreSsoMembershipsOfRealTeamsAndManualOnesSurviveTheNextSignIn() {
    signInLee();
    String leeId = member("lee@example.com").get("id").asText();
    JsonNode web = null;
    for (JsonNode t : hub.get("/api/v2/teams", OWNER_TOKEN).body().get("items")) {
      if (t.get("name").asText().equals("web")) {
        web = t;
      }
    }
    assertThat(web).as("the mapping's team exists as a team").isNotNull();
    JsonNode detail = hub.get("/api/v2/teams/" + web.get("id").asText(), OWNER_TOKEN).body();
    assertThat(detail.get("members").toString())
        .contains("\"memberId\":\"" + leeId + "\"")
        .contains("\"source\":\"oidc\"");

    // An admin puts lee in a team by hand; the next sign-in keeps it and the group's team.
    HubTestSupport.Response oncall =
        hub.post("/api/v2/teams", OWNER_TOKEN, Map.of("name", "oncall-" + leeId.substring(0, 8)));
    assertThat(oncall.status()).as(oncall.raw()).isEqualTo(201);
    String oncallId = oncall.body().get("id").asText();
    assertThat(
            hub.post(
                    "/api/v2/teams/" + oncallId + "/members",
                    OWNER_TOKEN,
                    Map.of("memberId", leeId))
                .status())
        .isEqualTo(200);
    signInLee();
    assertThat(member("lee@example.com").get("teams").toString())
        .contains("web")
        .contains("oncall-" + leeId.substring(0, 8));
    // Removing lee from the group's team by hand is not possible: the provider decides it.
    assertThat(
            hub.send(
                    "DELETE",
                    "/api/v2/teams/" + web.get("id").asText() + "/members/" + leeId,
                    OWNER_TOKEN,
                    null)
                .status())
        .isEqualTo(404);
  }

  @Test
  void eachAccessTokenBuysOneSessionEvenAfterSignOut() {
    Device device = authorize(idp, "gitopshq-cli");
    approve(idp, device, "lee", "lee-pass");
    String accessToken = accessToken(poll(idp, "gitopshq-cli", device));
    long sessions = HubTestSupport.count("select count(*) from member_sessions");

    HubTestSupport.Response first =
        hub.post("/api/v2/auth/oidc/token", null, Map.of("accessToken", accessToken));
    assertThat(first.status()).isEqualTo(201);
    String session = first.body().get("token").asText();

    // The same provider token again (copied, leaked): no second 8-hour session (issue 26, N6).
    HubTestSupport.Response again =
        hub.post("/api/v2/auth/oidc/token", null, Map.of("accessToken", accessToken));
    assertUnauthorized(again);
    assertThat(again.body().get("message").asText()).contains("already exchanged");

    // Nor after the member signed out.
    assertThat(hub.post("/api/v2/auth/logout", session, null).status()).isEqualTo(204);
    HubTestSupport.Response afterSignOut =
        hub.post("/api/v2/auth/oidc/token", null, Map.of("accessToken", accessToken));
    assertUnauthorized(afterSignOut);
    assertThat(afterSignOut.body().get("message").asText()).contains("already exchanged");
    assertThat(HubTestSupport.count("select count(*) from member_sessions"))
        .isEqualTo(sessions + 1);
    // Only a hash of the token's identity is kept, never the token.
    assertThat(
            HubTestSupport.count(
                "select count(*) from oidc_exchanged_tokens where token_hash = ?",
                Tokens.sha256Hex(accessToken)))
        .isZero();
    assertThat(
            HubTestSupport.count(
                "select count(*) from oidc_exchanged_tokens e join organizations o"
                    + " on o.id = e.org_id where o.slug = 'default' and e.expires_at > now()"))
        .isPositive();
  }

  @Test
  void tokensFromAnotherIssuerOrForAnotherAudienceAreRefused() {
    Device foreign = authorize(otherIdp, "gitopshq-cli");
    approve(otherIdp, foreign, "dev", "dev-pass");
    String foreignToken = accessToken(poll(otherIdp, "gitopshq-cli", foreign));
    assertUnauthorized(
        hub.post("/api/v2/auth/oidc/token", null, Map.of("accessToken", foreignToken)));

    Device otherApp = authorize(idp, "other-app");
    approve(idp, otherApp, "dev", "dev-pass");
    String otherAppToken = accessToken(poll(idp, "other-app", otherApp));
    assertUnauthorized(
        hub.post("/api/v2/auth/oidc/token", null, Map.of("accessToken", otherAppToken)));

    // The provider's token is not a hub bearer token: it only buys a session through the exchange.
    assertUnauthorized(hub.get("/api/v2/clusters", otherAppToken));
    assertUnauthorized(
        hub.post("/api/v2/auth/oidc/token", null, Map.of("accessToken", "not.a.jwt")));
  }

  @Test
  void anExpiredAccessTokenIsRefusedAndTheRecordOfUsedTokensIsPruned() throws Exception {
    Device device = authorize(idp, "short-cli");
    approve(idp, device, "dev", "dev-pass");
    String token = accessToken(poll(idp, "short-cli", device));
    Device unused = authorize(idp, "short-cli");
    approve(idp, unused, "dev", "dev-pass");
    String neverExchanged = accessToken(poll(idp, "short-cli", unused));
    // Accepted while it lives (short-cli is one of the hub's audiences)...
    assertThat(hub.post("/api/v2/auth/oidc/token", null, Map.of("accessToken", token)).status())
        .isEqualTo(201);
    long exp =
        JSON.readTree(Base64.getUrlDecoder().decode(neverExchanged.split("\\.")[1]))
            .get("exp")
            .asLong();
    while (Instant.now().getEpochSecond() <= exp + 1) {
      Thread.sleep(250);
    }
    // ...and refused once expired, even never exchanged before.
    HubTestSupport.Response expired =
        hub.post("/api/v2/auth/oidc/token", null, Map.of("accessToken", neverExchanged));
    assertUnauthorized(expired);
    assertThat(expired.body().get("message").asText()).doesNotContain("already exchanged");
    assertThat(
            HubTestSupport.count(
                "select count(*) from oidc_exchanged_tokens where expires_at <= now()"))
        .isPositive();

    // The next exchange forgets the used tokens that have expired: the record does not grow.
    Device next = authorize(idp, "gitopshq-cli");
    approve(idp, next, "dev", "dev-pass");
    assertThat(
            hub.post(
                    "/api/v2/auth/oidc/token",
                    null,
                    Map.of("accessToken", accessToken(poll(idp, "gitopshq-cli", next))))
                .status())
        .isEqualTo(201);
    assertThat(
            HubTestSupport.count(
                "select count(*) from oidc_exchanged_tokens where expires_at <= now()"))
        .isZero();
  }

  // ---- sessions, sign-out, configuration ------------------------------------------------------

  @Test
  void signOutRevokesTheSessionAndApiTokensKeepWorking() {
    Browser browser = new Browser();
    Browser.Page done = browser.get(toCallback(browser, "demo", "demo-pass").next());
    String session =
        Browser.params(URI.create(done.location()).getRawFragment()).get("session_token");
    assertThat(hub.get("/api/v2/clusters", session).status()).isEqualTo(200);

    assertThat(hub.post("/api/v2/auth/logout", session, null).status()).isEqualTo(204);
    assertUnauthorized(hub.get("/api/v2/clusters", session));
    assertUnauthorized(hub.post("/api/v2/auth/logout", session, null));

    // An API token is not a session: sign-out refuses it, and it keeps working for automation.
    HubTestSupport.Response apiLogout = hub.post("/api/v2/auth/logout", OWNER_TOKEN, null);
    assertThat(apiLogout.status()).isEqualTo(400);
    assertThat(hub.get("/api/v2/clusters", OWNER_TOKEN).status()).isEqualTo(200);
  }

  @Test
  void authConfigTellsClientsHowToSignIn() {
    HubTestSupport.Response r = hub.get("/api/v2/auth/config", null);
    assertThat(r.status()).isEqualTo(200);
    JsonNode sso = r.body().get("sso");
    assertThat(sso.get("enabled").asBoolean()).isTrue();
    assertThat(sso.get("issuer").asText()).isEqualTo(idp.issuer());
    assertThat(sso.get("clientId").asText()).isEqualTo("gitopshq-ui");
    assertThat(sso.get("cliClientId").asText()).isEqualTo("gitopshq-cli");
    assertThat(sso.get("loginUrl").asText()).isEqualTo("/api/v2/auth/oidc/login");
    assertThat(r.body().get("apiTokens").asBoolean()).isTrue();
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /**
   * Starts a sign-in at the hub, signs in on the provider's form, and returns the provider's
   * redirect to the hub's callback (not yet followed).
   */
  private Browser.Page toCallback(Browser browser, String user, String password) {
    Browser.Page login = browser.get(hubUri(LOGIN));
    assertThat(login.status()).isEqualTo(302);
    Browser.Page toForm = browser.get(login.next());
    assertThat(toForm.status()).isEqualTo(302);
    assertThat(toForm.location()).endsWith("/login");
    Browser.Page afterLogin = browser.signIn(toForm, user, password);
    assertThat(afterLogin.status()).isEqualTo(302);
    Browser.Page callback = browser.follow(afterLogin, URI.create(idp.issuer()).getPort());
    assertThat(callback.status()).isEqualTo(302);
    assertThat(callback.next().getPath()).isEqualTo(CALLBACK);
    return callback;
  }

  record Device(String deviceCode, String userCode, URI verificationUri) {}

  private Device authorize(DevIdp provider, String clientId) {
    HttpResponse<String> r =
        form(
            provider.issuer() + "/oauth2/device_authorization",
            "client_id=" + clientId + "&scope=" + Browser.enc("profile email groups"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode body = readTree(r.body());
    return new Device(
        body.get("device_code").asText(),
        body.get("user_code").asText(),
        URI.create(body.get("verification_uri").asText()));
  }

  private HttpResponse<String> poll(DevIdp provider, String clientId, Device d) {
    return form(
        provider.issuer() + "/oauth2/token",
        "grant_type="
            + Browser.enc("urn:ietf:params:oauth:grant-type:device_code")
            + "&client_id="
            + clientId
            + "&device_code="
            + Browser.enc(d.deviceCode()));
  }

  /**
   * The user opens the verification page, signs in, enters the code and gives consent (unless they
   * consented to this client before).
   */
  private void approve(DevIdp provider, Device d, String user, String password) {
    Browser browser = new Browser();
    Browser.Page toLogin = browser.get(d.verificationUri());
    assertThat(toLogin.status()).isEqualTo(302);
    Browser.Page afterLogin = browser.signIn(toLogin, user, password);
    Browser.Page page = browser.get(afterLogin.next());
    assertThat(page.status()).isEqualTo(200);
    URI action = page.uri().resolve(Browser.formAction(page.body()));
    Browser.Page consent =
        browser.get(URI.create(action + "?user_code=" + Browser.enc(d.userCode())));
    if (consent.status() == 302) {
      // The user consented to this client before: the provider approves the code at once.
      assertThat(consent.location()).contains("success");
      return;
    }
    assertThat(consent.status()).as(consent.body()).isEqualTo(200);
    List<Map.Entry<String, String>> answer = new ArrayList<>();
    answer.add(Map.entry("client_id", Browser.hidden(consent.body(), "client_id")));
    answer.add(Map.entry("state", Browser.hidden(consent.body(), "state")));
    answer.add(Map.entry("user_code", Browser.hidden(consent.body(), "user_code")));
    Browser.checkboxes(consent.body(), "scope").forEach(s -> answer.add(Map.entry("scope", s)));
    Browser.Page approved = browser.post(action, answer);
    assertThat(approved.status()).isEqualTo(302);
    assertThat(approved.location()).contains("success");
  }

  private static String accessToken(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return readTree(r.body()).get("access_token").asText();
  }

  private HttpResponse<String> form(String url, String body) {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create(url))
              .header("Content-Type", "application/x-www-form-urlencoded")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private JsonNode member(String email) {
    for (JsonNode m : hub.get("/api/v2/members", OWNER_TOKEN).body().get("items")) {
      if (m.get("email").asText().equals(email)) {
        return m;
      }
    }
    throw new AssertionError("no member " + email);
  }

  private static JsonNode entry(JsonNode items, String action) {
    for (JsonNode e : items) {
      if (e.get("action").asText().equals(action)) {
        return e;
      }
    }
    throw new AssertionError("no audit entry " + action);
  }

  private URI hubUri(String path) {
    return URI.create("http://127.0.0.1:" + hubPort + path);
  }

  private static void assertUnauthorized(HubTestSupport.Response r) {
    assertThat(r.status()).as(r.raw()).isEqualTo(401);
    assertThat(r.body().get("error").asText()).isEqualTo("unauthorized");
  }

  private static JsonNode readTree(String s) {
    try {
      return JSON.readTree(s);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}

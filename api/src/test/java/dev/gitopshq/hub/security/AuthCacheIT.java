package dev.gitopshq.hub.security;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.config.PgListener;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two hub replicas on one PostgreSQL, each caching authentications: a change made through one, or
 * by hand in the database, is refused by the other at once (PostgreSQL's notification, not a
 * sweep), and a hub that is not told of changes serves nothing from its cache.
 */
class AuthCacheIT {
  /** The notification crosses from PostgreSQL to the other hub in milliseconds; this is a bound. */
  static final Duration AT_ONCE = Duration.ofSeconds(1);

  static HubTestSupport a;
  static HubTestSupport b;

  @BeforeAll
  static void start() {
    a = new HubTestSupport().start();
    b = new HubTestSupport().start();
  }

  @AfterAll
  static void stop() {
    b.close();
    a.close();
  }

  static String member(String role) {
    Response m =
        a.post(
            "/api/v2/members",
            OWNER_TOKEN,
            Map.of(
                "email",
                role + "-" + UUID.randomUUID() + "@example.com",
                "name",
                role,
                "role",
                role));
    assertThat(m.status()).isEqualTo(201);
    return m.body().get("id").asText();
  }

  static Response token(String memberId) {
    Response t =
        a.post("/api/v2/members/" + memberId + "/tokens", OWNER_TOKEN, Map.of("name", "t"));
    assertThat(t.status()).isEqualTo(201);
    return t;
  }

  /** Cached on hub b: two answers in a row, the second from b's cache. */
  static void cachedOnB(String path, String token, int status) {
    assertThat(b.get(path, token).status()).isEqualTo(status);
    assertThat(b.get(path, token).status()).isEqualTo(status);
    assertThat(b.bean(AuthCache.class).size()).isPositive();
  }

  static boolean within(Duration bound, BooleanSupplier condition) {
    Instant deadline = Instant.now().plus(bound);
    while (Instant.now().isBefore(deadline)) {
      if (condition.getAsBoolean()) {
        return true;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return condition.getAsBoolean();
  }

  @Test
  void aTokenRevokedThroughOneHubIsRefusedByTheOtherAtOnce() {
    String id = member("member");
    Response t = token(id);
    String token = t.body().get("token").asText();
    cachedOnB("/api/v2/clusters", token, 200);
    assertThat(a.get("/api/v2/clusters", token).status()).isEqualTo(200);

    Response revoked =
        a.send(
            "DELETE",
            "/api/v2/members/" + id + "/tokens/" + t.body().get("id").asText(),
            OWNER_TOKEN,
            null);
    assertThat(revoked.status()).isEqualTo(200);
    // The hub that revoked it refuses it before it answered the revocation.
    assertThat(a.get("/api/v2/clusters", token).status()).isEqualTo(401);
    assertThat(within(AT_ONCE, () -> b.get("/api/v2/clusters", token).status() == 401)).isTrue();
  }

  @Test
  void aRoleLoweredOnOneHubNarrowsTheCallerOnTheOtherAtOnce() {
    String id = member("admin");
    String token = token(id).body().get("token").asText();
    cachedOnB("/api/v2/audit", token, 200);

    assertThat(a.patch("/api/v2/members/" + id, OWNER_TOKEN, Map.of("role", "viewer")).status())
        .isEqualTo(200);
    assertThat(within(AT_ONCE, () -> b.get("/api/v2/audit", token).status() == 403)).isTrue();
    assertThat(b.get("/api/v2/clusters", token).status()).isEqualTo(200);
  }

  @Test
  void aServiceAccountDisabledByHandInTheDatabaseIsRefusedAtOnce() {
    Response sa =
        a.post(
            "/api/v2/service-accounts",
            OWNER_TOKEN,
            Map.of(
                "name",
                "ci-" + UUID.randomUUID().toString().substring(0, 8),
                "description",
                "CI",
                "scopes",
                List.of("clusters:read")));
    assertThat(sa.status()).isEqualTo(201);
    String accountId = sa.body().get("id").asText();
    String token =
        a.post(
                "/api/v2/service-accounts/" + accountId + "/tokens",
                OWNER_TOKEN,
                Map.of("name", "t"))
            .body()
            .get("token")
            .asText();
    cachedOnB("/api/v2/clusters", token, 200);

    HubTestSupport.exec(
        "update service_accounts set disabled_at = now() where id = ?::uuid", accountId);
    assertThat(within(AT_ONCE, () -> b.get("/api/v2/clusters", token).status() == 401)).isTrue();
    assertThat(a.get("/api/v2/clusters", token).status()).isEqualTo(401);
  }

  @Test
  void whileAHubIsNotToldOfChangesItServesNothingFromItsCache() {
    String id = member("member");
    String token = token(id).body().get("token").asText();
    cachedOnB("/api/v2/clusters", token, 200);
    AuthCache cache = b.bean(AuthCache.class);

    // Cut every hub's listening connection; b notices and stops serving from its cache.
    HubTestSupport.exec(
        "select pg_terminate_backend(pid) from pg_stat_activity where application_name = '"
            + PgListener.APPLICATION_NAME
            + "'");
    assertThat(within(Duration.ofSeconds(5), () -> !cache.listening())).isTrue();
    // Still answered, from the database, while not listening.
    assertThat(b.get("/api/v2/clusters", token).status()).isEqualTo(200);
    assertThat(cache.size()).isZero();
    // A revocation nobody is told of (nobody listens) still takes effect at once.
    HubTestSupport.exec(
        "update api_tokens set revoked_at = now() where token_hash = ?", Tokens.sha256Hex(token));
    assertThat(b.get("/api/v2/clusters", token).status()).isEqualTo(401);

    // The listener comes back on its own, and caching resumes.
    assertThat(within(Duration.ofSeconds(10), cache::listening)).isTrue();
    assertThat(b.get("/api/v2/clusters", token).status()).isEqualTo(401);
    String fresh = token(member("member")).body().get("token").asText();
    cachedOnB("/api/v2/clusters", fresh, 200);
  }
}

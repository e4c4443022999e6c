package dev.gitopshq.hub.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AuthCacheTest {
  static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");
  static final HubPrincipal ALICE =
      new HubPrincipal(
          UUID.randomUUID(),
          UUID.randomUUID(),
          UUID.randomUUID(),
          null,
          "alice@example.com",
          Role.MEMBER,
          Set.of(Permission.CLUSTERS_READ),
          false);

  static AuthCache listening() {
    AuthCache cache = new AuthCache(true, Duration.ofMinutes(5));
    cache.listening(true);
    return cache;
  }

  @Test
  void aLookupIsServedUntilTheTokenExpiresOrTheMaxAgePasses() {
    AuthCache cache = listening();
    cache.put("h1", cache.generation(), ALICE, NOW.plusSeconds(30), true, NOW);
    cache.put("h2", cache.generation(), ALICE, null, true, NOW);

    assertThat(cache.get("h1", NOW.plusSeconds(29))).map(e -> e.principal).contains(ALICE);
    assertThat(cache.get("h1", NOW.plusSeconds(30))).isEmpty();
    assertThat(cache.get("h2", NOW.plus(Duration.ofMinutes(5)).minusMillis(1))).isPresent();
    assertThat(cache.get("h2", NOW.plus(Duration.ofMinutes(5)))).isEmpty();
  }

  @Test
  void aLookupThatRacedWithAChangeIsNotKept() {
    AuthCache cache = listening();
    long before = cache.generation();
    cache.invalidateAll(); // a revocation committed while the lookup ran
    cache.put("h", before, ALICE, null, true, NOW);
    assertThat(cache.get("h", NOW)).isEmpty();

    cache.put("h", cache.generation(), ALICE, null, true, NOW);
    assertThat(cache.get("h", NOW)).isPresent();
    cache.invalidateAll();
    assertThat(cache.get("h", NOW)).isEmpty();
  }

  @Test
  void nothingIsCachedOrServedWhileNotToldOfChanges() {
    AuthCache cache = new AuthCache(true, Duration.ofMinutes(5));
    cache.put("h", cache.generation(), ALICE, null, true, NOW);
    assertThat(cache.get("h", NOW)).isEmpty();

    cache.listening(true);
    cache.put("h", cache.generation(), ALICE, null, true, NOW);
    assertThat(cache.get("h", NOW)).isPresent();
    cache.listening(false); // the listener lost its connection: changes may be missed from now on
    assertThat(cache.get("h", NOW)).isEmpty();
    cache.listening(true);
    assertThat(cache.get("h", NOW)).isEmpty();
  }

  @Test
  void aDisabledCacheNeverServes() {
    AuthCache cache = new AuthCache(false, Duration.ofMinutes(5));
    cache.listening(true);
    cache.put("h", cache.generation(), ALICE, null, true, NOW);
    assertThat(cache.get("h", NOW)).isEmpty();
  }

  @Test
  void aBurstOfDistinctTokensStartsTheCacheOver() {
    AuthCache cache = listening();
    for (int i = 0; i < AuthCache.MAX_ENTRIES + 10; i++) {
      cache.put("h" + i, cache.generation(), ALICE, null, true, NOW);
    }
    assertThat(cache.size()).isLessThanOrEqualTo(AuthCache.MAX_ENTRIES);
    assertThat(cache.get("h" + (AuthCache.MAX_ENTRIES + 9), NOW)).isPresent();
  }
}

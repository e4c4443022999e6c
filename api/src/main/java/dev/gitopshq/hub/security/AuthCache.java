package dev.gitopshq.hub.security;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Authentications this hub has already looked up, by the SHA-256 of the presented token, so that a
 * request does not cost a PostgreSQL round trip. The cache never outlives a change:
 *
 * <ul>
 *   <li>every write through the identity mappers empties it in this hub at once ({@link
 *       AuthWriteInterceptor}), and again when its transaction commits;
 *   <li>PostgreSQL tells every hub of every change to tokens, sessions, members, service accounts
 *       and the operator flag when it commits (V23's triggers, channel {@code gitopshq_auth}), and
 *       {@link AuthChanges} empties it on that;
 *   <li>while that listener is not listening (starting, or its connection lost) nothing is cached
 *       or served from here, so a missed notification cannot leave a revoked token working.
 * </ul>
 *
 * <p>An entry is also dropped when its token or session expires, and after {@code
 * gitopshq.auth-cache.max-age} at the latest. A lookup that raced with a change is not kept: {@link
 * #put} checks the generation read before the lookup.
 */
@Component
public class AuthCache {
  /**
   * Past this many entries the cache starts over (a burst of distinct tokens, not a steady state).
   */
  static final int MAX_ENTRIES = 20_000;

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicLong generation = new AtomicLong();
  private final boolean enabled;
  private final Duration maxAge;
  private volatile boolean listening;

  public AuthCache(
      @Value("${gitopshq.auth-cache.enabled:true}") boolean enabled,
      @Value("${gitopshq.auth-cache.max-age:5m}") Duration maxAge) {
    this.enabled = enabled;
    this.maxAge = maxAge;
  }

  /** A cached authentication: who, until when, and when its use was last recorded. */
  static final class Entry {
    final HubPrincipal principal;
    final Instant validUntil;
    final boolean apiToken;
    volatile Instant touchedAt;

    Entry(HubPrincipal principal, Instant validUntil, boolean apiToken, Instant touchedAt) {
      this.principal = principal;
      this.validUntil = validUntil;
      this.apiToken = apiToken;
      this.touchedAt = touchedAt;
    }
  }

  boolean enabled() {
    return enabled;
  }

  /** The generation to pass to {@link #put}; read it before the lookup. */
  long generation() {
    return generation.get();
  }

  Optional<Entry> get(String tokenHash, Instant now) {
    if (!enabled || !listening) {
      return Optional.empty();
    }
    Entry e = entries.get(tokenHash);
    if (e == null) {
      return Optional.empty();
    }
    if (!now.isBefore(e.validUntil)) {
      entries.remove(tokenHash, e);
      return Optional.empty();
    }
    return Optional.of(e);
  }

  /**
   * Keeps a lookup's result, unless the cache changed generation since {@code generationBefore} (a
   * change committed while the lookup ran).
   */
  void put(
      String tokenHash,
      long generationBefore,
      HubPrincipal principal,
      Instant expiresAt,
      boolean apiToken,
      Instant now) {
    if (!enabled || !listening) {
      return;
    }
    Instant validUntil = now.plus(maxAge);
    if (expiresAt != null && expiresAt.isBefore(validUntil)) {
      validUntil = expiresAt;
    }
    if (entries.size() >= MAX_ENTRIES) {
      entries.clear();
    }
    Entry e = new Entry(principal, validUntil, apiToken, now);
    entries.put(tokenHash, e);
    if (generation.get() != generationBefore) {
      entries.remove(tokenHash, e);
    }
  }

  /**
   * Forgets every authentication (the generation moves first, so a lookup in flight is not kept).
   */
  public void invalidateAll() {
    generation.incrementAndGet();
    entries.clear();
  }

  /** Whether hubs are told of changes now; while not, nothing is cached. */
  void listening(boolean listening) {
    invalidateAll();
    this.listening = listening;
    invalidateAll();
  }

  boolean listening() {
    return listening;
  }

  int size() {
    return entries.size();
  }
}

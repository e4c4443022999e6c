package dev.gitopshq.hub.security;

import dev.gitopshq.hub.config.PgListener;
import org.springframework.stereotype.Component;

/**
 * The channel {@code gitopshq_auth} (V23's triggers: tokens, sessions, members, service accounts,
 * the operator flag): any change empties the {@link AuthCache}, and while the hub does not listen
 * the cache serves nothing.
 */
@Component
public class AuthChanges implements PgListener.Channel {
  static final String CHANNEL = "gitopshq_auth";

  private final AuthCache cache;

  public AuthChanges(AuthCache cache) {
    this.cache = cache;
  }

  @Override
  public String channel() {
    return CHANNEL;
  }

  @Override
  public void onNotification(String payload) {
    cache.invalidateAll();
  }

  @Override
  public void onListening(boolean listening) {
    cache.listening(listening && cache.enabled());
  }
}

package dev.gitopshq.hub.security;

import dev.gitopshq.activities.identity.ApiTokenMapper;
import dev.gitopshq.activities.identity.Permission;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * Whether callers that authenticated when a long-lived request started (a log stream) may still
 * act: asked of PostgreSQL, never of the {@link AuthCache}, so it holds on every hub replica
 * whichever of them revoked the token, removed the member or signed the session out.
 */
@Component
public class CallerCheck {
  private final ApiTokenMapper tokens;
  private final Clock clock;

  public CallerCheck(ApiTokenMapper tokens, Clock clock) {
    this.tokens = tokens;
    this.clock = clock;
  }

  /**
   * Of these callers' token or session ids, the ones that may no longer act with {@code
   * permission}, each with why ({@code token revoked}, {@code member removed}, {@code session
   * revoked}, {@code service account disabled}, {@code token expired}, {@code clusters:read
   * withdrawn}, ...). One query for all of them.
   */
  public Map<UUID, String> revoked(Collection<UUID> tokenIds, Permission permission) {
    Map<UUID, String> out = new HashMap<>();
    if (tokenIds.isEmpty()) {
      return out;
    }
    List<UUID> ids = new ArrayList<>(tokenIds);
    Map<UUID, String> found = new HashMap<>();
    for (ApiTokenMapper.CallerState s :
        tokens.callerStates(ids, permission.scope(), clock.instant())) {
      found.put(s.id(), s.reason());
    }
    for (UUID id : ids) {
      if (!found.containsKey(id)) {
        out.put(id, "token revoked");
      } else if (found.get(id) != null) {
        out.put(id, found.get(id));
      }
    }
    return out;
  }
}

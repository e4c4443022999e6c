package dev.gitopshq.hub.policy;

import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where the hub's OPA is ({@code opa.*} in application.yml).
 *
 * @param url OPA's base URL (OPA_URL), e.g. {@code http://127.0.0.1:8181}; one OPA serves one
 *     organization, since policy ids are {@code gitopshq/<name>}
 * @param republishInterval how often the hub checks that OPA holds every active policy version's
 *     exact text and uploads what is missing or different (after an OPA restart, while OPA was
 *     unreachable at start, or when a module was replaced behind the hub's back)
 * @param token the bearer token OPA's authorization policy admits (GITOPSHQ_OPA_TOKEN); empty for
 *     an OPA whose API is open, which only a test should run
 */
@ConfigurationProperties("opa")
public record OpaProperties(
    @DefaultValue("http://127.0.0.1:8181") URI url,
    @DefaultValue("5s") Duration republishInterval,
    @DefaultValue("") String token) {

  /** Never prints the token. */
  @Override
  public String toString() {
    return "OpaProperties[url="
        + url
        + ", republishInterval="
        + republishInterval
        + ", token="
        + (token.isBlank() ? "(none)" : "(set)")
        + "]";
  }
}

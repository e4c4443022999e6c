package dev.gitopshq.hub.policy;

import dev.gitopshq.activities.policy.OpaClient;
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
 * @param protocol how the hub talks to OPA over an {@code http} URL (GITOPSHQ_OPA_PROTOCOL): {@code
 *     h2c}, cleartext HTTP/2 on one reused connection, for an OPA run with {@code --h2c} (the
 *     default), or {@code http1} for an OPA without it
 * @param moduleCheckMaxAge how long a check that OPA holds exactly the hub's modules serves
 *     decisions before OPA's modules are listed again (GITOPSHQ_OPA_MODULE_CHECK_MAX_AGE, 1 s);
 *     zero checks before every decision
 */
@ConfigurationProperties("opa")
public record OpaProperties(
    @DefaultValue("http://127.0.0.1:8181") URI url,
    @DefaultValue("5s") Duration republishInterval,
    @DefaultValue("") String token,
    @DefaultValue("h2c") String protocol,
    @DefaultValue("1s") Duration moduleCheckMaxAge) {

  public OpaProperties {
    OpaClient.Transport.parse(protocol); // fails the hub's start on a misspelt value
    if (moduleCheckMaxAge == null) {
      moduleCheckMaxAge = Duration.ofSeconds(1);
    }
    if (moduleCheckMaxAge.isNegative()) {
      throw new IllegalArgumentException(
          "GITOPSHQ_OPA_MODULE_CHECK_MAX_AGE must be zero or more; got " + moduleCheckMaxAge);
    }
  }

  /** Never prints the token. */
  @Override
  public String toString() {
    return "OpaProperties[url="
        + url
        + ", republishInterval="
        + republishInterval
        + ", token="
        + (token.isBlank() ? "(none)" : "(set)")
        + ", protocol="
        + protocol
        + ", moduleCheckMaxAge="
        + moduleCheckMaxAge
        + "]";
  }
}

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
 * @param republishInterval how often the hub checks that OPA holds every active policy version
 *     and uploads what is missing (after an OPA restart, or while OPA was unreachable at start)
 */
@ConfigurationProperties("opa")
public record OpaProperties(
    @DefaultValue("http://127.0.0.1:8181") URI url,
    @DefaultValue("5s") Duration republishInterval) {}

package dev.gitopshq.hub.sso;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** The SSO settings as an operator gives them: environment variables only. */
class OidcPropertiesBindingTest {
  @Test
  void groupMappingsAndTheRestBindFromEnvironmentVariables() {
    StandardEnvironment env = new StandardEnvironment();
    env.getPropertySources()
        .replace(
            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
            new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                Map.of(
                    "GITOPSHQ_OIDC_ISSUER", "https://dex.example.com/",
                    "GITOPSHQ_OIDC_CLIENT_ID", "gitopshq",
                    "GITOPSHQ_OIDC_CLI_CLIENT_ID", "gitopshq-cli",
                    "GITOPSHQ_OIDC_REDIRECTURI",
                        "https://hub.example.com/api/v2/auth/oidc/callback",
                    "GITOPSHQ_OIDC_SESSIONTTL", "2h",
                    "GITOPSHQ_OIDC_GROUPMAPPINGS_0_GROUP", "platform-admins",
                    "GITOPSHQ_OIDC_GROUPMAPPINGS_0_ROLE", "admin",
                    "GITOPSHQ_OIDC_GROUPMAPPINGS_0_TEAMS", "platform,sre",
                    "GITOPSHQ_OIDC_GROUPMAPPINGS_1_GROUP", "developers",
                    "GITOPSHQ_OIDC_GROUPMAPPINGS_1_ROLE", "member")));
    OidcProperties p =
        new Binder(ConfigurationPropertySources.get(env))
            .bind("gitopshq.oidc", OidcProperties.class)
            .get();

    assertThat(p.issuer()).isEqualTo("https://dex.example.com");
    assertThat(p.sessionTtl()).isEqualTo(Duration.ofHours(2));
    assertThat(p.audiences()).containsExactly("gitopshq-cli");
    assertThat(p.groupMappings()).hasSize(2);
    assertThat(p.groupMappings().get(0).teams()).containsExactly("platform", "sre");
    assertThat(p.groupMappings().get(1).role()).isEqualTo("member");
    assertThat(p.groupMappings().get(1).teams()).isEmpty();
  }
}

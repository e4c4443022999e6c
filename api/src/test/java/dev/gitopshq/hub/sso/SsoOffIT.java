package dev.gitopshq.hub.sso;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.hub.HubTestSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A hub without an issuer: SSO is off and says so, and its endpoints do not exist. */
class SsoOffIT {
  private static HubTestSupport hub;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
  }

  @Test
  void withoutAnIssuerSsoIsOffAndItsEndpointsAre404() {
    HubTestSupport.Response config = hub.get("/api/v2/auth/config", null);
    assertThat(config.status()).isEqualTo(200);
    assertThat(config.body().get("sso").get("enabled").asBoolean()).isFalse();
    assertThat(config.body().get("sso").has("issuer")).isFalse();

    assertThat(hub.get("/api/v2/auth/oidc/login", null).status()).isEqualTo(404);
    assertThat(
            hub.post("/api/v2/auth/oidc/token", null, java.util.Map.of("accessToken", "x"))
                .status())
        .isEqualTo(404);
    // A token in the shape of a session that was never issued is the usual 401.
    assertThat(hub.get("/api/v2/clusters", "ghqo_" + "0".repeat(64)).status()).isEqualTo(401);
  }
}

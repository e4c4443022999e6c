package dev.gitopshq.idp;

import org.springframework.security.core.Transient;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.server.authorization.authentication.OAuth2ClientAuthenticationToken;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClient;

/**
 * A public client (no secret) on the device authorization and token endpoints of the device grant.
 * Spring Authorization Server authenticates public clients only with PKCE, which the device grant
 * has no place for, so {@link DeviceClientAuthentication} accepts them by client id.
 */
@Transient
final class DeviceClientToken extends OAuth2ClientAuthenticationToken {
  DeviceClientToken(String clientId) {
    super(clientId, ClientAuthenticationMethod.NONE, null, null);
  }

  DeviceClientToken(RegisteredClient client) {
    super(client, ClientAuthenticationMethod.NONE, null);
  }
}

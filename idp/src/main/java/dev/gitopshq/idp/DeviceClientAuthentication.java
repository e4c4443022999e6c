package dev.gitopshq.idp;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2ErrorCodes;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClient;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClientRepository;
import org.springframework.security.web.authentication.AuthenticationConverter;

/**
 * Authenticates public device-grant clients by their {@code client_id}: the converter picks the
 * device authorization request and the device-code token request without client credentials, the
 * provider accepts a registered client that has no secret and the device grant.
 */
final class DeviceClientAuthentication {
  private DeviceClientAuthentication() {}

  static final class Converter implements AuthenticationConverter {
    private final String deviceAuthorizationPath;
    private final String tokenPath;

    Converter(String deviceAuthorizationPath, String tokenPath) {
      this.deviceAuthorizationPath = deviceAuthorizationPath;
      this.tokenPath = tokenPath;
    }

    @Override
    public Authentication convert(HttpServletRequest request) {
      if (!"POST".equals(request.getMethod())) {
        return null;
      }
      String path = request.getRequestURI().substring(request.getContextPath().length());
      boolean device =
          path.equals(deviceAuthorizationPath)
              || (path.equals(tokenPath)
                  && AuthorizationGrantType.DEVICE_CODE
                      .getValue()
                      .equals(request.getParameter("grant_type")));
      if (!device
          || request.getHeader("Authorization") != null
          || request.getParameter("client_secret") != null) {
        return null;
      }
      String[] ids = request.getParameterValues("client_id");
      if (ids == null || ids.length != 1 || ids[0].isBlank()) {
        throw new OAuth2AuthenticationException(OAuth2ErrorCodes.INVALID_REQUEST);
      }
      return new DeviceClientToken(ids[0]);
    }
  }

  static final class Provider implements AuthenticationProvider {
    private final RegisteredClientRepository clients;

    Provider(RegisteredClientRepository clients) {
      this.clients = clients;
    }

    @Override
    public Authentication authenticate(Authentication authentication) {
      DeviceClientToken token = (DeviceClientToken) authentication;
      RegisteredClient client = clients.findByClientId((String) token.getPrincipal());
      if (client == null
          || !client.getClientAuthenticationMethods().contains(ClientAuthenticationMethod.NONE)
          || !client.getAuthorizationGrantTypes().contains(AuthorizationGrantType.DEVICE_CODE)) {
        throw new OAuth2AuthenticationException(OAuth2ErrorCodes.INVALID_CLIENT);
      }
      return new DeviceClientToken(client);
    }

    @Override
    public boolean supports(Class<?> type) {
      return DeviceClientToken.class.isAssignableFrom(type);
    }
  }
}

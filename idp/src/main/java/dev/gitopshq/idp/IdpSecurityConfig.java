package dev.gitopshq.idp;

import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.util.List;
import java.util.UUID;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.oidc.OidcScopes;
import org.springframework.security.oauth2.core.oidc.endpoint.OidcParameterNames;
import org.springframework.security.oauth2.server.authorization.OAuth2TokenType;
import org.springframework.security.oauth2.server.authorization.client.InMemoryRegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClient;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.config.annotation.web.configurers.OAuth2AuthorizationServerConfigurer;
import org.springframework.security.oauth2.server.authorization.settings.AuthorizationServerSettings;
import org.springframework.security.oauth2.server.authorization.settings.ClientSettings;
import org.springframework.security.oauth2.server.authorization.settings.TokenSettings;
import org.springframework.security.oauth2.server.authorization.token.JwtEncodingContext;
import org.springframework.security.oauth2.server.authorization.token.OAuth2TokenCustomizer;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.LoginUrlAuthenticationEntryPoint;
import org.springframework.security.web.util.matcher.MediaTypeRequestMatcher;

/**
 * The authorization server (its endpoints, OIDC, the device grant for public clients) and the
 * sign-in pages (a form login, and {@code /activate} where a signed-in user enters a device's
 * code).
 */
@Configuration
public class IdpSecurityConfig {
  static final String ACTIVATE = "/activate";

  @Bean
  @Order(1)
  SecurityFilterChain authorizationServer(
      HttpSecurity http, RegisteredClientRepository clients, AuthorizationServerSettings settings)
      throws Exception {
    OAuth2AuthorizationServerConfigurer server =
        OAuth2AuthorizationServerConfigurer.authorizationServer();
    http.securityMatcher(server.getEndpointsMatcher())
        .with(
            server,
            s ->
                s.oidc(Customizer.withDefaults())
                    .deviceAuthorizationEndpoint(d -> d.verificationUri(ACTIVATE))
                    .clientAuthentication(
                        c ->
                            c.authenticationConverter(
                                    new DeviceClientAuthentication.Converter(
                                        settings.getDeviceAuthorizationEndpoint(),
                                        settings.getTokenEndpoint()))
                                .authenticationProvider(
                                    new DeviceClientAuthentication.Provider(clients))))
        .authorizeHttpRequests(a -> a.anyRequest().authenticated())
        // A browser that is not signed in is sent to the login form, then back.
        .exceptionHandling(
            e ->
                e.defaultAuthenticationEntryPointFor(
                    new LoginUrlAuthenticationEntryPoint("/login"),
                    new MediaTypeRequestMatcher(MediaType.TEXT_HTML)));
    return http.build();
  }

  @Bean
  @Order(2)
  SecurityFilterChain pages(HttpSecurity http) throws Exception {
    http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
        .formLogin(Customizer.withDefaults());
    return http.build();
  }

  @Bean
  UserDetailsService users(IdpProperties props) {
    return new InMemoryUserDetailsManager(
        props.users().stream()
            .map(
                u ->
                    User.withUsername(u.username())
                        .password("{noop}" + u.password())
                        .roles("USER")
                        .build())
            .toList());
  }

  @Bean
  RegisteredClientRepository clients(IdpProperties props) {
    List<RegisteredClient> clients =
        props.clients().stream().map(IdpSecurityConfig::registeredClient).toList();
    return new InMemoryRegisteredClientRepository(clients);
  }

  private static RegisteredClient registeredClient(IdpProperties.Client c) {
    RegisteredClient.Builder b =
        RegisteredClient.withId(UUID.randomUUID().toString())
            .clientId(c.id())
            .clientAuthenticationMethod(ClientAuthenticationMethod.NONE)
            .scope(OidcScopes.OPENID)
            .scope(OidcScopes.PROFILE)
            .scope(OidcScopes.EMAIL)
            .scope("groups")
            .tokenSettings(
                TokenSettings.builder().accessTokenTimeToLive(c.accessTokenTtl()).build());
    switch (c.grant()) {
      case "authorization_code" -> {
        b.authorizationGrantType(AuthorizationGrantType.AUTHORIZATION_CODE);
        c.redirectUris().forEach(b::redirectUri);
        b.clientSettings(
            ClientSettings.builder()
                .requireProofKey(true)
                .requireAuthorizationConsent(false)
                .build());
      }
      case "device_code" -> {
        b.authorizationGrantType(AuthorizationGrantType.DEVICE_CODE);
        b.clientSettings(ClientSettings.builder().requireAuthorizationConsent(false).build());
      }
      default ->
          throw new IllegalArgumentException(
              "idp.clients: grant of '" + c.id() + "' must be authorization_code or device_code");
    }
    return b.build();
  }

  /** Puts the user's groups, email and name into ID tokens and access tokens. */
  @Bean
  OAuth2TokenCustomizer<JwtEncodingContext> userClaims(IdpProperties props) {
    return ctx -> {
      boolean idToken = OidcParameterNames.ID_TOKEN.equals(ctx.getTokenType().getValue());
      if (!idToken && !OAuth2TokenType.ACCESS_TOKEN.equals(ctx.getTokenType())) {
        return;
      }
      props
          .user(ctx.getPrincipal().getName())
          .ifPresent(
              u -> {
                ctx.getClaims()
                    .claim("groups", u.groups())
                    .claim("email", u.email())
                    .claim("name", u.name())
                    .claim("preferred_username", u.username());
                if (u.emailVerified() != null) {
                  ctx.getClaims().claim("email_verified", u.emailVerified());
                }
              });
    };
  }

  @Bean
  AuthorizationServerSettings authorizationServerSettings(IdpProperties props) {
    return AuthorizationServerSettings.builder().issuer(props.issuer()).build();
  }

  /** A signing key made at start: tokens from an earlier run do not verify after a restart. */
  @Bean
  JWKSource<SecurityContext> jwkSource() throws NoSuchAlgorithmException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    KeyPair pair = generator.generateKeyPair();
    RSAKey key =
        new RSAKey.Builder((RSAPublicKey) pair.getPublic())
            .privateKey((RSAPrivateKey) pair.getPrivate())
            .keyID(UUID.randomUUID().toString())
            .build();
    return new ImmutableJWKSet<>(new JWKSet(key));
  }
}

package dev.gitopshq.hub.sso;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.stereotype.Component;

/**
 * The hub's view of the OpenID Connect provider: its discovery document (read on first use and
 * kept; the hub starts without the provider), token verification against its JWKS, and the code
 * redemption at its token endpoint. Nothing here logs a token, a code or a verifier.
 */
@Component
public class OidcProvider {
  private static final Logger log = LoggerFactory.getLogger(OidcProvider.class);

  /** Discovery documents and token responses are small; a larger answer is refused unread. */
  private static final int MAX_RESPONSE_BYTES = 256 * 1024;

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final OidcProperties config;
  private final ObjectMapper json;
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();
  private volatile Metadata metadata;

  public OidcProvider(OidcProperties config, ObjectMapper json) {
    this.config = config;
    this.json = json;
  }

  /** The provider's endpoints and the verifiers of its ID tokens and access tokens. */
  record Metadata(
      URI authorizationEndpoint,
      URI tokenEndpoint,
      URI deviceAuthorizationEndpoint,
      JwtDecoder idTokens,
      JwtDecoder accessTokens) {}

  Metadata metadata() {
    Metadata m = metadata;
    if (m != null) {
      return m;
    }
    synchronized (this) {
      if (metadata == null) {
        metadata = discover();
      }
      return metadata;
    }
  }

  private Metadata discover() {
    URI uri = URI.create(config.issuer() + "/.well-known/openid-configuration");
    JsonNode doc;
    try {
      HttpResponse<InputStream> r =
          http.send(
              HttpRequest.newBuilder(uri)
                  .timeout(TIMEOUT)
                  .header("Accept", "application/json")
                  .build(),
              HttpResponse.BodyHandlers.ofInputStream());
      byte[] body = readBounded(r.body());
      if (r.statusCode() != 200) {
        throw unavailable("its discovery document answered HTTP " + r.statusCode());
      }
      doc = json.readTree(body);
    } catch (IOException e) {
      log.warn("SSO: cannot read the discovery document of {}: {}", config.issuer(), e.toString());
      throw unavailable("its discovery document cannot be read");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unavailable("interrupted");
    }
    if (!config.issuer().equals(doc.path("issuer").asText())) {
      // OpenID Connect Discovery 1.0, section 4.3: the issuer must be the one asked for.
      throw unavailable("its discovery document names another issuer");
    }
    URI jwks = endpoint(doc, "jwks_uri", true);
    return new Metadata(
        endpoint(doc, "authorization_endpoint", true),
        endpoint(doc, "token_endpoint", true),
        endpoint(doc, "device_authorization_endpoint", false),
        decoder(jwks, Set.of(config.clientId())),
        decoder(jwks, Set.copyOf(config.audiences())));
  }

  /**
   * A verifier for tokens of this issuer: an RSA or EC signature by one of the JWKS keys, {@code
   * iss} equal to the issuer, {@code exp} in the future (with the clock skew), and an {@code aud}
   * among {@code audiences}.
   */
  private JwtDecoder decoder(URI jwks, Set<String> audiences) {
    NimbusJwtDecoder d =
        NimbusJwtDecoder.withJwkSetUri(jwks.toString())
            .jwsAlgorithms(
                a ->
                    a.addAll(
                        List.of(
                            SignatureAlgorithm.RS256, SignatureAlgorithm.RS384,
                            SignatureAlgorithm.RS512, SignatureAlgorithm.PS256,
                            SignatureAlgorithm.ES256, SignatureAlgorithm.ES384)))
            .build();
    OAuth2TokenValidator<Jwt> required =
        jwt ->
            jwt.getExpiresAt() == null || jwt.getSubject() == null || jwt.getSubject().isBlank()
                ? OAuth2TokenValidatorResult.failure(
                    new OAuth2Error("invalid_token", "exp and sub are required", null))
                : OAuth2TokenValidatorResult.success();
    OAuth2TokenValidator<Jwt> audience =
        jwt ->
            jwt.getAudience() != null && jwt.getAudience().stream().anyMatch(audiences::contains)
                ? OAuth2TokenValidatorResult.success()
                : OAuth2TokenValidatorResult.failure(
                    new OAuth2Error("invalid_token", "the audience is not this hub", null));
    d.setJwtValidator(
        new DelegatingOAuth2TokenValidator<>(
            new JwtTimestampValidator(config.clockSkew()),
            new JwtIssuerValidator(config.issuer()),
            required,
            audience));
    return d;
  }

  /** Verifies an ID token; empty answers are {@link JwtException}s the caller turns into 401. */
  Jwt verifyIdToken(String token) {
    return metadata().idTokens().decode(token);
  }

  Jwt verifyAccessToken(String token) {
    return metadata().accessTokens().decode(token);
  }

  /**
   * Redeems an authorization code at the token endpoint (with the PKCE verifier) and returns the ID
   * token. A refusal is a 401 naming the provider's error code, never the code itself.
   */
  String redeem(String code, String codeVerifier) {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "authorization_code");
    form.put("code", code);
    form.put("redirect_uri", config.redirectUri());
    form.put("client_id", config.clientId());
    form.put("code_verifier", codeVerifier);
    HttpRequest.Builder b =
        HttpRequest.newBuilder(metadata().tokenEndpoint())
            .timeout(TIMEOUT)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(formEncode(form)));
    if (config.clientSecret() != null) {
      String pair = urlEncode(config.clientId()) + ":" + urlEncode(config.clientSecret());
      b.header(
          "Authorization",
          "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }
    JsonNode answer;
    int status;
    try {
      HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
      status = r.statusCode();
      answer = json.readTree(readBounded(r.body()));
    } catch (IOException e) {
      log.warn("SSO: the token endpoint of {} did not answer: {}", config.issuer(), e.toString());
      throw unavailable("its token endpoint did not answer");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unavailable("interrupted");
    }
    if (status != 200 || !answer.path("id_token").isTextual()) {
      String error = answer == null ? "" : answer.path("error").asText("");
      throw refused(
          "the identity provider refused the authorization code ("
              + (error.matches("[a-z_]{1,64}") ? error : "HTTP " + status)
              + ")");
    }
    return answer.get("id_token").asText();
  }

  static ApiException refused(String message) {
    return new ApiException(new ApiError(401, "unauthorized", message, null));
  }

  private ApiException unavailable(String why) {
    return new ApiException(
        new ApiError(
            503,
            "sso_unavailable",
            "the identity provider " + config.issuer() + " is unavailable: " + why,
            null));
  }

  private URI endpoint(JsonNode doc, String name, boolean required) {
    String value = doc.path(name).asText("");
    if (value.isEmpty()) {
      if (required) {
        throw unavailable("its discovery document has no " + name);
      }
      return null;
    }
    URI uri = URI.create(value);
    if (!"https".equals(uri.getScheme()) && !"http".equals(uri.getScheme())) {
      throw unavailable(name + " is not an http(s) URL");
    }
    return uri;
  }

  private static byte[] readBounded(InputStream in) throws IOException {
    try (in) {
      byte[] body = in.readNBytes(MAX_RESPONSE_BYTES + 1);
      if (body.length > MAX_RESPONSE_BYTES) {
        throw new IOException("answer larger than " + MAX_RESPONSE_BYTES + " bytes");
      }
      return body;
    }
  }

  static String formEncode(Map<String, String> form) {
    return form.entrySet().stream()
        .map(e -> urlEncode(e.getKey()) + "=" + urlEncode(e.getValue()))
        .collect(Collectors.joining("&"));
  }

  static String urlEncode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}

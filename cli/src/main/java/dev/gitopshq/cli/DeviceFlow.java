package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The OAuth 2.0 device authorization grant (RFC 8628) against the provider the hub names in {@code
 * GET /api/v2/auth/config}: ask for a device code, show the user where to enter it, poll the token
 * endpoint, and exchange the provider's access token for a hub session ({@code POST
 * /api/v2/auth/oidc/token}).
 */
final class DeviceFlow {
  private static final Duration MAX_WAIT = Duration.ofMinutes(15);
  private final Root root;
  private final String server;
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(10))
          .version(HttpClient.Version.HTTP_1_1)
          .build();

  DeviceFlow(Root root, String server) {
    this.root = root;
    this.server = server;
  }

  /** Returns the hub session token. */
  String signIn() {
    HubClient anonymous = new HubClient(server, null, root.caFile);
    JsonNode sso = anonymous.call(Endpoint.AUTH_CONFIG).path("sso");
    if (!sso.path("enabled").asBoolean(false)) {
      throw new CliException(
          ExitCode.USAGE, "the hub has no single sign-on configured: log in with --token");
    }
    String issuer = sso.path("issuer").asText();
    String clientId = sso.path("cliClientId").asText();
    StringBuilder scopes = new StringBuilder();
    sso.path("cliScopes")
        .forEach(s -> scopes.append(scopes.isEmpty() ? "" : " ").append(s.asText()));
    JsonNode discovery = get(issuer.replaceAll("/$", "") + "/.well-known/openid-configuration");
    String deviceEndpoint = discovery.path("device_authorization_endpoint").asText("");
    String tokenEndpoint = discovery.path("token_endpoint").asText("");
    if (deviceEndpoint.isEmpty() || tokenEndpoint.isEmpty()) {
      throw new CliException(
          ExitCode.ERROR, "the provider " + issuer + " does not offer the device flow");
    }
    Map<String, String> ask = new LinkedHashMap<>();
    ask.put("client_id", clientId);
    ask.put("scope", scopes.toString());
    HttpResponse<String> r = post(deviceEndpoint, ask);
    JsonNode device = json(r.body());
    if (r.statusCode() != 200) {
      throw new CliException(
          ExitCode.FORBIDDEN, "the provider refused the device sign-in: " + oauthError(device));
    }
    root.err.println(
        "To sign in, open " + Output.oneLine(device.path("verification_uri").asText()));
    root.err.println("and enter the code " + Output.oneLine(device.path("user_code").asText()));
    String complete = device.path("verification_uri_complete").asText("");
    if (!complete.isEmpty()) {
      root.err.println("(or open " + Output.oneLine(complete) + ")");
    }
    root.err.flush();
    long interval = Math.max(1, device.path("interval").asLong(5));
    Instant deadline =
        Instant.now()
            .plus(
                Duration.ofSeconds(
                    Math.min(device.path("expires_in").asLong(600), MAX_WAIT.toSeconds())));
    Map<String, String> poll = new LinkedHashMap<>();
    poll.put("grant_type", "urn:ietf:params:oauth:grant-type:device_code");
    poll.put("client_id", clientId);
    poll.put("device_code", device.path("device_code").asText());
    while (Instant.now().isBefore(deadline)) {
      sleep(interval);
      HttpResponse<String> t = post(tokenEndpoint, poll);
      JsonNode body = json(t.body());
      if (t.statusCode() == 200 && body.path("access_token").isTextual()) {
        JsonNode session =
            anonymous.call(
                Endpoint.AUTH_OIDC_TOKEN,
                Map.of(),
                Map.of("accessToken", body.path("access_token").asText()),
                Map.of());
        return session.path("token").asText();
      }
      switch (body.path("error").asText()) {
        case "authorization_pending" -> {}
        case "slow_down" -> interval += 5;
        case "access_denied" -> throw new CliException(ExitCode.FORBIDDEN, "sign-in was denied");
        case "expired_token" -> throw new CliException(ExitCode.FORBIDDEN, "the code expired");
        default ->
            throw new CliException(
                ExitCode.FORBIDDEN, "the provider refused the sign-in: " + oauthError(body));
      }
    }
    throw new CliException(ExitCode.FORBIDDEN, "the code expired before the sign-in finished");
  }

  private static String oauthError(JsonNode body) {
    String e = body.path("error").asText("unknown error");
    String d = body.path("error_description").asText("");
    return Output.oneLine(d.isEmpty() ? e : e + " (" + d + ")");
  }

  private static void sleep(long seconds) {
    try {
      Thread.sleep(Duration.ofSeconds(seconds));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCode.ERROR, "interrupted");
    }
  }

  private JsonNode get(String url) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new CliException(ExitCode.UNREACHABLE, url + " answered HTTP " + r.statusCode());
      }
      return json(r.body());
    } catch (IOException e) {
      throw new CliException(ExitCode.UNREACHABLE, "cannot reach " + url + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCode.ERROR, "interrupted");
    }
  }

  private HttpResponse<String> post(String url, Map<String, String> form) {
    String body =
        form.entrySet().stream()
            .map(
                e ->
                    URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)
                        + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
            .collect(Collectors.joining("&"));
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create(url))
              .timeout(Duration.ofSeconds(30))
              .header("Content-Type", "application/x-www-form-urlencoded")
              .header("Accept", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new CliException(ExitCode.UNREACHABLE, "cannot reach " + url + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCode.ERROR, "interrupted");
    }
  }

  private static JsonNode json(String s) {
    try {
      return HubClient.JSON.readTree(s == null || s.isEmpty() ? "{}" : s);
    } catch (IOException e) {
      return HubClient.JSON.createObjectNode();
    }
  }
}

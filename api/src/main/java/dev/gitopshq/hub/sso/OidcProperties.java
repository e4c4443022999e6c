package dev.gitopshq.hub.sso;

import dev.gitopshq.activities.identity.Role;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * SSO through an OpenID Connect provider ({@code gitopshq.oidc.*}, each with an environment
 * variable). SSO is on when {@code issuer} is set.
 *
 * @param issuer the provider's issuer URL (GITOPSHQ_OIDC_ISSUER), exactly as its discovery document
 *     states it
 * @param clientId the client the hub signs browsers in with (GITOPSHQ_OIDC_CLIENT_ID); ID tokens
 *     must be addressed to it
 * @param clientSecret that client's secret, for providers that make web clients confidential
 *     (GITOPSHQ_OIDC_CLIENT_SECRET); empty for a public client (PKCE alone)
 * @param cliClientId the client a command line uses for the device flow
 *     (GITOPSHQ_OIDC_CLI_CLIENT_ID), reported by {@code GET /api/v2/auth/config}
 * @param audiences the {@code aud} values an access token presented to {@code POST
 *     /api/v2/auth/oidc/token} may carry (GITOPSHQ_OIDC_AUDIENCES); the CLI client id when empty
 * @param scopes what the hub asks for in a browser sign-in (GITOPSHQ_OIDC_SCOPES)
 * @param cliScopes what a command line should ask for in the device flow (GITOPSHQ_OIDC_CLI_SCOPES)
 * @param groupsClaim the claim holding the user's groups (GITOPSHQ_OIDC_GROUPS_CLAIM)
 * @param organization the slug of the organization SSO members join (GITOPSHQ_OIDC_ORG)
 * @param defaultRole the role of a user none of whose groups is mapped
 *     (GITOPSHQ_OIDC_DEFAULT_ROLE); empty refuses such users
 * @param groupMappings provider groups to roles and teams (GITOPSHQ_OIDC_GROUPMAPPINGS_0_GROUP,
 *     ..._0_ROLE, ..._0_TEAMS, ...)
 * @param redirectUri the hub's callback URL as registered at the provider
 *     (GITOPSHQ_OIDC_REDIRECT_URI)
 * @param postLoginRedirect where a signed-in browser is sent, with the session token in the URL
 *     fragment (GITOPSHQ_OIDC_POST_LOGIN_REDIRECT)
 * @param sessionTtl how long a hub session lives (GITOPSHQ_OIDC_SESSION_TTL, 8 h)
 * @param clockSkew tolerance for the {@code exp}, {@code nbf} and {@code iat} of tokens
 *     (GITOPSHQ_OIDC_CLOCK_SKEW, 30 s)
 */
@ConfigurationProperties("gitopshq.oidc")
public record OidcProperties(
    String issuer,
    String clientId,
    String clientSecret,
    String cliClientId,
    List<String> audiences,
    List<String> scopes,
    List<String> cliScopes,
    String groupsClaim,
    String organization,
    String defaultRole,
    List<GroupMapping> groupMappings,
    String redirectUri,
    String postLoginRedirect,
    Duration sessionTtl,
    Duration clockSkew) {

  public OidcProperties {
    issuer = blankToNull(issuer);
    if (issuer != null && issuer.endsWith("/")) {
      issuer = issuer.substring(0, issuer.length() - 1);
    }
    clientId = blankToNull(clientId);
    clientSecret = blankToNull(clientSecret);
    cliClientId = blankToNull(cliClientId);
    audiences = clean(audiences);
    if (audiences.isEmpty() && cliClientId != null) {
      audiences = List.of(cliClientId);
    }
    scopes =
        clean(scopes).isEmpty() ? List.of("openid", "profile", "email", "groups") : clean(scopes);
    cliScopes =
        clean(cliScopes).isEmpty() ? List.of("profile", "email", "groups") : clean(cliScopes);
    groupsClaim = blankToNull(groupsClaim) == null ? "groups" : groupsClaim;
    organization = blankToNull(organization) == null ? "default" : organization;
    defaultRole = blankToNull(defaultRole);
    groupMappings = groupMappings == null ? List.of() : List.copyOf(groupMappings);
    redirectUri = blankToNull(redirectUri);
    postLoginRedirect = blankToNull(postLoginRedirect) == null ? "/" : postLoginRedirect;
    sessionTtl = sessionTtl == null ? Duration.ofHours(8) : sessionTtl;
    clockSkew = clockSkew == null ? Duration.ofSeconds(30) : clockSkew;
    if (issuer != null) {
      validate(issuer, clientId, redirectUri, defaultRole, groupMappings, sessionTtl);
    }
  }

  /**
   * One mapping: members in {@code group} get at least {@code role} and join {@code teams}.
   *
   * @param role viewer, member or admin (owners are made in the hub, never by a provider)
   */
  public record GroupMapping(String group, String role, List<String> teams) {
    public GroupMapping {
      teams = clean(teams);
    }
  }

  /** True when SSO is configured. */
  public boolean enabled() {
    return issuer != null;
  }

  private static void validate(
      String issuer,
      String clientId,
      String redirectUri,
      String defaultRole,
      List<GroupMapping> mappings,
      Duration sessionTtl) {
    URI.create(issuer);
    if (clientId == null) {
      throw new IllegalArgumentException(
          "gitopshq.oidc.client-id (GITOPSHQ_OIDC_CLIENT_ID) is required with an issuer");
    }
    if (redirectUri == null) {
      throw new IllegalArgumentException(
          "gitopshq.oidc.redirect-uri (GITOPSHQ_OIDC_REDIRECT_URI) is required with an issuer");
    }
    if (defaultRole != null) {
      grantable("gitopshq.oidc.default-role", defaultRole);
    }
    for (int i = 0; i < mappings.size(); i++) {
      GroupMapping m = mappings.get(i);
      if (m.group() == null || m.group().isBlank()) {
        throw new IllegalArgumentException(
            "gitopshq.oidc.group-mappings[" + i + "].group is required");
      }
      grantable("gitopshq.oidc.group-mappings[" + i + "].role", m.role());
      for (String team : m.teams()) {
        if (!team.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
          throw new IllegalArgumentException(
              "gitopshq.oidc.group-mappings["
                  + i
                  + "].teams: '"
                  + team
                  + "' is not an RFC 1123 label");
        }
      }
    }
    if (sessionTtl.isNegative()
        || sessionTtl.isZero()
        || sessionTtl.compareTo(Duration.ofDays(7)) > 0) {
      throw new IllegalArgumentException(
          "gitopshq.oidc.session-ttl must be between 1 s and 7 days");
    }
  }

  private static Role grantable(String name, String role) {
    Role r = Role.parse(role).orElse(null);
    if (r == null || r == Role.OWNER) {
      throw new IllegalArgumentException(name + " must be one of viewer, member, admin");
    }
    return r;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  private static List<String> clean(List<String> values) {
    return values == null
        ? List.of()
        : values.stream().filter(v -> v != null && !v.isBlank()).map(String::strip).toList();
  }

  @Override
  public String toString() {
    return "OidcProperties[issuer=" + issuer + ", clientId=" + clientId + "]";
  }
}

package dev.gitopshq.idp;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The provider's issuer, users and clients ({@code idp.*}).
 *
 * @param issuer the issuer URL, exactly as relying parties configure it (no trailing slash)
 * @param users the people who can sign in
 * @param clients the registered clients
 */
@ConfigurationProperties("idp")
public record IdpProperties(String issuer, List<User> users, List<Client> clients) {
  public IdpProperties {
    users = users == null ? List.of() : List.copyOf(users);
    clients = clients == null ? List.of() : List.copyOf(clients);
  }

  /**
   * A person.
   *
   * @param groups put into the {@code groups} claim of ID and access tokens
   * @param emailVerified the {@code email_verified} claim; left out of tokens when unset
   */
  public record User(
      String username,
      String password,
      String email,
      String name,
      List<String> groups,
      Boolean emailVerified) {
    public User {
      groups = groups == null ? List.of() : List.copyOf(groups);
    }

    @Override
    public String toString() {
      return "User[" + username + "]";
    }
  }

  /**
   * A public client (no secret).
   *
   * @param id the client id
   * @param grant {@code authorization_code} (with PKCE, for browser sign-in) or {@code device_code}
   *     (the device authorization grant, for a CLI)
   * @param redirectUris where authorization codes may be sent (authorization_code only)
   * @param accessTokenTtl how long its access tokens live (5 minutes when unset)
   */
  public record Client(
      String id, String grant, List<String> redirectUris, Duration accessTokenTtl) {
    public Client {
      redirectUris = redirectUris == null ? List.of() : List.copyOf(redirectUris);
      accessTokenTtl = accessTokenTtl == null ? Duration.ofMinutes(5) : accessTokenTtl;
    }
  }

  public Optional<User> user(String username) {
    return users.stream().filter(u -> u.username().equals(username)).findFirst();
  }
}

package dev.gitopshq.activities.tokens;

/** The kinds of bearer token the hub issues, each recognisable by its prefix. */
public enum TokenKind {
  /** Single-use cluster registration token, valid for one hour. */
  REGISTRATION("ghqa_reg_"),
  /** A cluster agent's long-lived token. */
  AGENT("ghqa_"),
  /** A member's personal API token. */
  PERSONAL("ghqp_"),
  /** A service account's scoped API token. */
  SERVICE_ACCOUNT("ghqs_"),
  /** A project's read-only deploy token for its hosted Git repository (clone and fetch only). */
  DEPLOY("ghqd_"),
  /** A member's hub session, issued by an SSO sign-in (OIDC); short-lived, revoked by sign-out. */
  SESSION("ghqo_");

  private final String prefix;

  TokenKind(String prefix) {
    this.prefix = prefix;
  }

  public String prefix() {
    return prefix;
  }

  /**
   * True when {@code value} has exactly this kind's shape: the prefix and 64 lowercase hex digits.
   * An agent token is not mistaken for a registration token, although both start with {@code
   * ghqa_}.
   */
  public boolean matches(String value) {
    if (value == null || value.length() != prefix.length() + 64 || !value.startsWith(prefix)) {
      return false;
    }
    for (int i = prefix.length(); i < value.length(); i++) {
      char c = value.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }
}

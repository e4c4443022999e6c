package dev.gitopshq.activities.tokens;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Generates bearer tokens ({@code prefix + 64 lowercase hex}, 32 random bytes) and hashes them. The
 * store keeps only {@link #sha256Hex(String)} of a token; lookups hash the presented value.
 */
public final class Tokens {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final HexFormat HEX = HexFormat.of();

  private Tokens() {}

  /** A fresh token of the given kind. The caller hands it out once and keeps only its hash. */
  public static IssuedToken issue(TokenKind kind) {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    String value = kind.prefix() + HEX.formatHex(bytes);
    return new IssuedToken(value, sha256Hex(value));
  }

  /** The lowercase hex SHA-256 of a token's UTF-8 bytes. */
  public static String sha256Hex(String value) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HEX.formatHex(digest.digest(value.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /**
   * A token and its hash. {@link #toString()} never shows the value, so a token cannot leak into a
   * log line or an exception message by accident.
   */
  public record IssuedToken(String value, String hash) {
    @Override
    public String toString() {
      return "IssuedToken[hash=" + hash + "]";
    }
  }
}

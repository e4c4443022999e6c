package dev.gitopshq.evidence;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 as lower-case hex, the form every hash in GitOpsHQ takes. */
public final class Sha256 {
  private Sha256() {}

  public static String hex(byte[] data) {
    return HexFormat.of().formatHex(digest().digest(data));
  }

  /** A fresh SHA-256 digest. */
  public static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /**
   * The SHA-256 of a workflow history as evidence documents name it: over the canonical form
   * ({@link CanonicalJson}) of Temporal's history JSON, so pretty-printing does not change it.
   *
   * @throws IllegalArgumentException when the bytes are not JSON
   */
  public static String history(byte[] historyJson) {
    return hex(CanonicalJson.canonicalize(historyJson));
  }
}

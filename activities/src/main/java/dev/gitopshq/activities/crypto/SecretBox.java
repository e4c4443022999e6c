package dev.gitopshq.activities.crypto;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals small secrets with AES-256-GCM under one key, for secrets the hub must read back (unlike
 * tokens, which are stored only as hashes). A sealed value is {@code version (1 byte) || nonce (12
 * bytes) || ciphertext || tag (16 bytes)}; the nonce is random per seal. The caller passes a
 * context (e.g. {@code project-webhook:<project id>}) that is authenticated but not stored, so a
 * sealed value copied to another row does not open there.
 */
public final class SecretBox {
  /** The key length in bytes. */
  public static final int KEY_BYTES = 32;

  private static final byte VERSION = 1;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;

  public SecretBox(byte[] key) {
    if (key == null || key.length != KEY_BYTES) {
      throw new IllegalArgumentException("the encryption key must be " + KEY_BYTES + " bytes");
    }
    this.key = new SecretKeySpec(key.clone(), "AES");
  }

  /**
   * A box for a base64-encoded key.
   *
   * @throws IllegalArgumentException when it is not base64 of {@value #KEY_BYTES} bytes (the
   *     message never contains the key)
   */
  public static SecretBox ofBase64(String key) {
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(key.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the encryption key is not valid base64");
    }
    return new SecretBox(raw);
  }

  /** A new random key. */
  public static byte[] newKey() {
    byte[] k = new byte[KEY_BYTES];
    RANDOM.nextBytes(k);
    return k;
  }

  public byte[] seal(byte[] plaintext, String context) {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      c.updateAAD(aad(context));
      byte[] ct = c.doFinal(plaintext);
      return ByteBuffer.allocate(1 + NONCE_BYTES + ct.length)
          .put(VERSION)
          .put(nonce)
          .put(ct)
          .array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available", e);
    }
  }

  /**
   * Opens a sealed value.
   *
   * @throws SecretBoxException when it was sealed under another key or context, or was changed
   */
  public byte[] open(byte[] sealed, String context) {
    if (sealed == null || sealed.length < 1 + NONCE_BYTES + TAG_BITS / 8 || sealed[0] != VERSION) {
      throw new SecretBoxException("the sealed value is malformed");
    }
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(
          Cipher.DECRYPT_MODE,
          key,
          new GCMParameterSpec(TAG_BITS, Arrays.copyOfRange(sealed, 1, 1 + NONCE_BYTES)));
      c.updateAAD(aad(context));
      return c.doFinal(sealed, 1 + NONCE_BYTES, sealed.length - 1 - NONCE_BYTES);
    } catch (AEADBadTagException e) {
      throw new SecretBoxException(
          "the sealed value does not verify (wrong key, wrong context or tampered)");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available", e);
    }
  }

  private static byte[] aad(String context) {
    return (context == null ? "" : context).getBytes(StandardCharsets.UTF_8);
  }

  /** A sealed value that cannot be opened. The message never contains key or plaintext. */
  public static final class SecretBoxException extends RuntimeException {
    public SecretBoxException(String message) {
      super(message);
    }
  }
}

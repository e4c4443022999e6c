package dev.gitopshq.evidence;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;

/**
 * Ed25519 with the JDK's own provider. Public keys travel as base64 of their X.509
 * SubjectPublicKeyInfo (DER) or as PEM ({@code -----BEGIN PUBLIC KEY-----}); private keys as PKCS#8
 * DER; a key's id is the first 16 hex digits of the SHA-256 of its DER public key.
 */
public final class Ed25519 {
  public static final String ALGORITHM = "Ed25519";

  private Ed25519() {}

  public static KeyPair generate() {
    try {
      return KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Ed25519 is not available", e);
    }
  }

  public static byte[] sign(PrivateKey key, byte[] data) {
    try {
      Signature s = Signature.getInstance(ALGORITHM);
      s.initSign(key);
      s.update(data);
      return s.sign();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign with Ed25519", e);
    }
  }

  /** True when {@code signature} is the key's signature of {@code data}; false for any mismatch. */
  public static boolean verify(PublicKey key, byte[] data, byte[] signature) {
    try {
      Signature s = Signature.getInstance(ALGORITHM);
      s.initVerify(key);
      s.update(data);
      return s.verify(signature);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      return false;
    }
  }

  /** The id of a public key: 16 hex digits of the SHA-256 of its DER encoding. */
  public static String keyId(PublicKey key) {
    return Sha256.hex(key.getEncoded()).substring(0, 16);
  }

  public static String publicKeyBase64(PublicKey key) {
    return Base64.getEncoder().encodeToString(key.getEncoded());
  }

  public static String publicKeyPem(PublicKey key) {
    return "-----BEGIN PUBLIC KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(key.getEncoded())
        + "\n-----END PUBLIC KEY-----\n";
  }

  /**
   * Reads a public key from PEM or from base64 of its DER encoding.
   *
   * @throws IllegalArgumentException when it is neither, or not an Ed25519 key
   */
  public static PublicKey publicKey(String text) {
    String b64 =
        text.replace("-----BEGIN PUBLIC KEY-----", "")
            .replace("-----END PUBLIC KEY-----", "")
            .replaceAll("\\s", "");
    try {
      return KeyFactory.getInstance(ALGORITHM)
          .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(b64)));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("not an Ed25519 public key (PEM or base64 DER)");
    }
  }

  public static PublicKey publicKey(byte[] der) {
    try {
      return KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not an Ed25519 public key");
    }
  }

  public static PrivateKey privateKey(byte[] pkcs8) {
    try {
      return KeyFactory.getInstance(ALGORITHM).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not an Ed25519 private key");
    }
  }
}

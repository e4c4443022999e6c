package dev.gitopshq.hub.credential;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.hub.web.Checks;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a credential's values for its type before anything stores them, and derives what may be
 * shown about them (key names, and for tls the certificate's SHA-256 fingerprint). Error messages
 * name the field and never repeat a value.
 */
public final class CredentialValues {
  /** The credential types and the keys their Secrets hold. */
  public static final Set<String> TYPES = Set.of("dockerconfigjson", "tls", "opaque");

  /** At most this many bytes of values per credential, all keys together. */
  public static final int MAX_TOTAL_BYTES = 256 * 1024;

  public static final int MAX_KEYS = 64;

  /** A Secret's data key, as Kubernetes allows it. */
  private static final Pattern SECRET_KEY = Pattern.compile("[-._a-zA-Z0-9]+");

  private static final Pattern PEM =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]+?)\\s*-----END \\1-----");

  private static final ObjectMapper JSON = new ObjectMapper();

  private CredentialValues() {}

  /** Values that passed the checks, as bytes, with what may be shown about them. */
  public record Checked(Map<String, byte[]> values, List<String> keyNames, String fingerprint) {
    @Override
    public String toString() {
      return "Checked[keys=" + keyNames + "]";
    }
  }

  /**
   * Checks {@code data} for {@code type}, adding a failure per field to {@code checks}; returns
   * null when something failed.
   */
  public static Checked check(Checks checks, String type, Map<String, String> data) {
    if (data == null || data.isEmpty()) {
      checks.fail("data", "is required: the credential's keys and values");
      return null;
    }
    if (data.size() > MAX_KEYS) {
      checks.fail("data", "must have at most " + MAX_KEYS + " keys");
      return null;
    }
    long total = 0;
    Map<String, byte[]> values = new LinkedHashMap<>();
    boolean ok = true;
    for (Map.Entry<String, String> e : data.entrySet()) {
      String key = e.getKey();
      if (key == null
          || key.isEmpty()
          || key.length() > 253
          || !SECRET_KEY.matcher(key).matches()
          || key.equals(".")
          || key.equals("..")) {
        checks.fail(
            "data",
            "keys must be valid Secret keys (letters, digits, '-', '_', '.'; at most 253"
                + " characters)");
        ok = false;
        continue;
      }
      if (e.getValue() == null) {
        checks.fail("data." + key, "must be a string");
        ok = false;
        continue;
      }
      byte[] v = e.getValue().getBytes(StandardCharsets.UTF_8);
      total += v.length;
      values.put(key, v);
    }
    if (total > MAX_TOTAL_BYTES) {
      checks.fail("data", "must be at most " + MAX_TOTAL_BYTES + " bytes in total (256 KiB)");
      return null;
    }
    if (!ok) {
      return null;
    }
    String fingerprint = null;
    switch (type == null ? "" : type) {
      case "dockerconfigjson" -> {
        if (!values.keySet().equals(Set.of(".dockerconfigjson"))) {
          checks.fail(
              "data", "a dockerconfigjson credential has exactly the key .dockerconfigjson");
          return null;
        }
        if (!dockerConfig(values.get(".dockerconfigjson"))) {
          checks.fail(
              "data..dockerconfigjson",
              "must be a Docker config JSON object with an \"auths\" object");
          return null;
        }
      }
      case "tls" -> {
        if (!values.keySet().equals(Set.of("tls.crt", "tls.key"))
            && !values.keySet().equals(Set.of("tls.crt", "tls.key", "ca.crt"))) {
          checks.fail("data", "a tls credential has the keys tls.crt and tls.key (and ca.crt)");
          return null;
        }
        fingerprint = tls(checks, values.get("tls.crt"), values.get("tls.key"));
        if (fingerprint == null) {
          return null;
        }
      }
      case "opaque" -> {}
      default -> {
        checks.fail("type", "must be one of dockerconfigjson, tls, opaque");
        return null;
      }
    }
    return new Checked(values, List.copyOf(values.keySet()), fingerprint);
  }

  private static boolean dockerConfig(byte[] json) {
    try {
      JsonNode root = JSON.readTree(json);
      return root != null && root.isObject() && root.path("auths").isObject();
    } catch (IOException e) {
      return false;
    }
  }

  /** The certificate's SHA-256 fingerprint when certificate and key parse and match; else null. */
  static String tls(Checks checks, byte[] crtPem, byte[] keyPem) {
    X509Certificate cert;
    try {
      List<byte[]> certs = pem(new String(crtPem, StandardCharsets.US_ASCII), "CERTIFICATE");
      if (certs.isEmpty()) {
        checks.fail("data.tls.crt", "must be a PEM certificate (-----BEGIN CERTIFICATE-----)");
        return null;
      }
      cert =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(new ByteArrayInputStream(certs.get(0)));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      checks.fail("data.tls.crt", "is not a valid X.509 certificate");
      return null;
    }
    PrivateKey key = privateKey(new String(keyPem, StandardCharsets.US_ASCII), cert.getPublicKey());
    if (key == null) {
      checks.fail(
          "data.tls.key",
          "must be a PEM private key (PKCS#8 \"PRIVATE KEY\" or PKCS#1 \"RSA PRIVATE KEY\") of the"
              + " certificate's algorithm");
      return null;
    }
    if (!matches(key, cert.getPublicKey())) {
      checks.fail("data.tls.key", "does not match the certificate's public key");
      return null;
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(cert.getEncoded());
      return "SHA256:" + HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static PrivateKey privateKey(String pem, PublicKey certKey) {
    try {
      List<byte[]> pkcs8 = pem(pem, "PRIVATE KEY");
      byte[] der;
      if (!pkcs8.isEmpty()) {
        der = pkcs8.get(0);
      } else {
        List<byte[]> rsa = pem(pem, "RSA PRIVATE KEY");
        if (rsa.isEmpty()) {
          return null;
        }
        der = rsaPkcs1ToPkcs8(rsa.get(0));
      }
      String algorithm = certKey.getAlgorithm();
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      return null;
    }
  }

  /** Proves the pair: a signature by the key verifies with the certificate's public key. */
  private static boolean matches(PrivateKey key, PublicKey pub) {
    String alg =
        switch (pub.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "Ed25519", "EdDSA" -> "Ed25519";
          case "Ed448" -> "Ed448";
          default -> null;
        };
    if (alg == null) {
      return false;
    }
    try {
      byte[] probe = new byte[32];
      new SecureRandom().nextBytes(probe);
      Signature s = Signature.getInstance(alg);
      s.initSign(key);
      s.update(probe);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance(alg);
      v.initVerify(pub);
      v.update(probe);
      return v.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static List<byte[]> pem(String text, String label) {
    List<byte[]> out = new ArrayList<>();
    Matcher m = PEM.matcher(text);
    while (m.find()) {
      if (m.group(1).equals(label)) {
        out.add(Base64.getMimeDecoder().decode(m.group(2)));
      }
    }
    return out;
  }

  /** Wraps a PKCS#1 RSAPrivateKey in a PKCS#8 PrivateKeyInfo (DER). */
  private static byte[] rsaPkcs1ToPkcs8(byte[] pkcs1) {
    byte[] algId = {
      0x30,
      0x0d,
      0x06,
      0x09,
      0x2a,
      (byte) 0x86,
      0x48,
      (byte) 0x86,
      (byte) 0xf7,
      0x0d,
      0x01,
      0x01,
      0x01,
      0x05,
      0x00
    };
    byte[] version = {0x02, 0x01, 0x00};
    byte[] octet = der((byte) 0x04, pkcs1);
    byte[] body = new byte[version.length + algId.length + octet.length];
    System.arraycopy(version, 0, body, 0, version.length);
    System.arraycopy(algId, 0, body, version.length, algId.length);
    System.arraycopy(octet, 0, body, version.length + algId.length, octet.length);
    return der((byte) 0x30, body);
  }

  private static byte[] der(byte tag, byte[] content) {
    int len = content.length;
    byte[] header;
    if (len < 0x80) {
      header = new byte[] {tag, (byte) len};
    } else if (len < 0x100) {
      header = new byte[] {tag, (byte) 0x81, (byte) len};
    } else if (len < 0x10000) {
      header = new byte[] {tag, (byte) 0x82, (byte) (len >> 8), (byte) len};
    } else {
      header = new byte[] {tag, (byte) 0x83, (byte) (len >> 16), (byte) (len >> 8), (byte) len};
    }
    byte[] out = new byte[header.length + len];
    System.arraycopy(header, 0, out, 0, header.length);
    System.arraycopy(content, 0, out, header.length, len);
    return out;
  }
}

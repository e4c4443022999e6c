package dev.gitopshq.agent.identity;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;

/**
 * The agent's client certificate for mutual TLS with the hub: its private key, the certificate the
 * organization's agent CA signed, and that CA. The key is a credential: {@link #toString()} leaves
 * it out.
 *
 * @param keyPem the private key, PKCS#8 PEM
 * @param certificatePem the client certificate, PEM
 * @param caPem the organization's agent CA certificate, PEM
 */
public record ClientCredential(String keyPem, String certificatePem, String caPem) {

  /** Rejects an unreadable certificate, which would make a useless credential. */
  public ClientCredential {
    if (keyPem == null || keyPem.isBlank()) {
      throw new IllegalArgumentException("keyPem must not be empty");
    }
    certificate(certificatePem);
  }

  /** The client certificate. */
  public X509Certificate certificate() {
    return certificate(certificatePem);
  }

  public Instant notBefore() {
    return certificate().getNotBefore().toInstant();
  }

  public Instant notAfter() {
    return certificate().getNotAfter().toInstant();
  }

  /** The serial number, lowercase hex, as the hub shows it. */
  public String serial() {
    return certificate().getSerialNumber().toString(16);
  }

  /** When the agent renews: two thirds into the certificate's lifetime. */
  public Instant renewAt() {
    Instant from = notBefore();
    long life = notAfter().toEpochMilli() - from.toEpochMilli();
    return from.plusMillis(life * 2 / 3);
  }

  private static X509Certificate certificate(String pem) {
    if (pem == null || pem.isBlank()) {
      throw new IllegalArgumentException("certificatePem must not be empty");
    }
    try {
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.UTF_8)));
    } catch (CertificateException | ClassCastException e) {
      throw new IllegalArgumentException("certificatePem is not a PEM certificate");
    }
  }

  @Override
  public String toString() {
    return "ClientCredential[serial=" + serial() + ", notAfter=" + notAfter() + ", key=<redacted>]";
  }
}

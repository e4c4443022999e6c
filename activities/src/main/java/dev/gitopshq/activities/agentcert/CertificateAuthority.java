package dev.gitopshq.activities.agentcert;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Date;
import java.util.Optional;
import java.util.UUID;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemReader;

/**
 * One organization's agent CA: an ECDSA P-256 key and its self-signed certificate ({@code
 * CN=GitOpsHQ agent CA, O=<org id>}), which signs agents' client certificates. A client certificate
 * names its cluster and organization itself ({@code CN=<cluster id>, O=<org id>}, and the URI SAN
 * {@code urn:gitopshq:org:<org id>:cluster:<cluster id>}); whatever subject the agent's CSR asks
 * for is ignored. Only the CSR's public key is used, after its signature proves the agent holds the
 * private key.
 */
public final class CertificateAuthority {
  /** The largest CSR accepted, PEM or DER. */
  public static final int MAX_CSR_BYTES = 8 * 1024;

  static final String CA_COMMON_NAME = "GitOpsHQ agent CA";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final UUID orgId;
  private final X509Certificate certificate;
  private final PrivateKey key;

  private CertificateAuthority(UUID orgId, X509Certificate certificate, PrivateKey key) {
    this.orgId = orgId;
    this.certificate = certificate;
    this.key = key;
  }

  /** A new CA for the organization, valid for ten years from {@code now}. */
  public static CertificateAuthority create(UUID orgId, Instant now) {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      KeyPair pair = g.generateKeyPair();
      X500Name name =
          new X500NameBuilder(BCStyle.INSTANCE)
              .addRDN(BCStyle.CN, CA_COMMON_NAME)
              .addRDN(BCStyle.O, orgId.toString())
              .build();
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
                  name,
                  new BigInteger(128, RANDOM),
                  Date.from(now.minusSeconds(60)),
                  Date.from(now.plusSeconds(10L * 366 * 24 * 3600)),
                  name,
                  pair.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
              .addExtension(
                  Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  ext.createSubjectKeyIdentifier(pair.getPublic()));
      return new CertificateAuthority(orgId, sign(b, pair.getPrivate()), pair.getPrivate());
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create an agent CA", e);
    }
  }

  /** The CA as stored: its certificate (PEM) and its private key (PKCS#8 DER, to be sealed). */
  public static CertificateAuthority load(UUID orgId, String certificatePem, byte[] pkcs8) {
    try {
      X509Certificate cert = parseCertificate(certificatePem);
      PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
      return new CertificateAuthority(orgId, cert, key);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the agent CA of organization " + orgId + " is unusable", e);
    }
  }

  public UUID orgId() {
    return orgId;
  }

  public X509Certificate certificate() {
    return certificate;
  }

  public String certificatePem() {
    return pem(certificate);
  }

  /** The private key in PKCS#8 DER; seal it before it leaves memory. */
  public byte[] privateKeyPkcs8() {
    return key.getEncoded();
  }

  /**
   * Signs a client certificate for the cluster's agent with the CSR's public key.
   *
   * @param serial the certificate's serial number (positive)
   */
  public X509Certificate issue(
      PublicKey agentKey, UUID clusterId, BigInteger serial, Instant notBefore, Instant notAfter) {
    try {
      X500Name subject =
          new X500NameBuilder(BCStyle.INSTANCE)
              .addRDN(BCStyle.CN, clusterId.toString())
              .addRDN(BCStyle.O, orgId.toString())
              .build();
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
                  certificate, serial, Date.from(notBefore), Date.from(notAfter), subject, agentKey)
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
              .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
              .addExtension(
                  Extension.extendedKeyUsage,
                  false,
                  new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth))
              .addExtension(
                  Extension.subjectAlternativeName,
                  false,
                  new GeneralNames(
                      new GeneralName(
                          GeneralName.uniformResourceIdentifier, uri(orgId, clusterId))))
              .addExtension(
                  Extension.authorityKeyIdentifier,
                  false,
                  ext.createAuthorityKeyIdentifier(certificate))
              .addExtension(
                  Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(agentKey));
      return sign(b, key);
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot sign an agent certificate", e);
    }
  }

  /** Whether this CA signed the certificate (its signature verifies with the CA's key). */
  public boolean signed(X509Certificate cert) {
    try {
      cert.verify(certificate.getPublicKey());
      return cert.getIssuerX500Principal().equals(certificate.getSubjectX500Principal());
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  /** The URI SAN of a cluster's client certificate. */
  public static String uri(UUID orgId, UUID clusterId) {
    return "urn:gitopshq:org:" + orgId + ":cluster:" + clusterId;
  }

  /** Who a client certificate says it is: its organization and cluster (from O and CN). */
  public record Subject(UUID orgId, UUID clusterId) {}

  /** The organization and cluster a client certificate names; empty when it names none. */
  public static Optional<Subject> subjectOf(X509Certificate cert) {
    try {
      X500Name name = X500Name.getInstance(cert.getSubjectX500Principal().getEncoded());
      return Optional.of(new Subject(uuid(name, BCStyle.O), uuid(name, BCStyle.CN)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The organization whose CA issued the certificate (the issuer's O); empty when none. */
  public static Optional<UUID> issuerOrg(X509Certificate cert) {
    try {
      X500Name name = X500Name.getInstance(cert.getIssuerX500Principal().getEncoded());
      return Optional.of(uuid(name, BCStyle.O));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static UUID uuid(X500Name name, ASN1ObjectIdentifier attribute) {
    RDN[] rdns = name.getRDNs(attribute);
    if (rdns.length != 1) {
      throw new IllegalArgumentException("expected one " + attribute);
    }
    return UUID.fromString(IETFUtils.valueToString(rdns[0].getFirst().getValue()));
  }

  /**
   * The public key of a CSR (PEM or DER PKCS#10), once its signature proves possession of the
   * private key. Accepted keys: ECDSA P-256 or P-384, RSA of 2048 to 8192 bits.
   *
   * @throws BadCsr with a message for the caller when the CSR is too large, unreadable, badly
   *     signed or has an unaccepted key
   */
  public static PublicKey publicKeyOf(byte[] csr) {
    if (csr == null || csr.length == 0) {
      throw new BadCsr("is empty");
    }
    if (csr.length > MAX_CSR_BYTES) {
      throw new BadCsr("is larger than " + MAX_CSR_BYTES + " bytes");
    }
    byte[] der = csr;
    String text = new String(csr, StandardCharsets.US_ASCII);
    if (text.contains("-----BEGIN")) {
      try (PemReader r = new PemReader(new StringReader(text))) {
        PemObject o = r.readPemObject();
        if (o == null || !o.getType().endsWith("CERTIFICATE REQUEST")) {
          throw new BadCsr("is not a PEM CERTIFICATE REQUEST");
        }
        der = o.getContent();
      } catch (IOException | RuntimeException e) {
        if (e instanceof BadCsr bad) {
          throw bad;
        }
        throw new BadCsr("is not readable PEM");
      }
    }
    JcaPKCS10CertificationRequest request;
    PublicKey key;
    try {
      request = new JcaPKCS10CertificationRequest(der);
      key = request.getPublicKey();
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new BadCsr("is not a PKCS#10 certificate request");
    }
    try {
      if (!request.isSignatureValid(
          new JcaContentVerifierProviderBuilder().build(request.getSubjectPublicKeyInfo()))) {
        throw new BadCsr("has a signature that does not verify");
      }
    } catch (OperatorCreationException | PKCSException e) {
      throw new BadCsr("has a signature that cannot be verified");
    }
    if (key instanceof ECPublicKey ec) {
      int bits = ec.getParams().getCurve().getField().getFieldSize();
      if (bits != 256 && bits != 384) {
        throw new BadCsr("has an EC key of " + bits + " bits; use P-256 or P-384");
      }
    } else if (key instanceof RSAPublicKey rsa) {
      int bits = rsa.getModulus().bitLength();
      if (bits < 2048 || bits > 8192) {
        throw new BadCsr("has an RSA key of " + bits + " bits; use 2048 to 8192");
      }
    } else {
      throw new BadCsr("has a " + key.getAlgorithm() + " key; use ECDSA P-256 or RSA");
    }
    return key;
  }

  /** A CSR the hub refuses; the message completes "csr ...". */
  public static final class BadCsr extends IllegalArgumentException {
    public BadCsr(String message) {
      super(message);
    }
  }

  public static String pem(X509Certificate cert) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(cert);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return out.toString();
  }

  public static X509Certificate parseCertificate(String pem) {
    try {
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not a PEM certificate", e);
    }
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key)
      throws OperatorCreationException, GeneralSecurityException {
    return new JcaX509CertificateConverter()
        .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
  }
}

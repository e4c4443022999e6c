package dev.gitopshq.activities.agentcert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.junit.jupiter.api.Test;

class CertificateAuthorityTest {
  static final UUID ORG = UUID.randomUUID();
  static final UUID CLUSTER = UUID.randomUUID();
  static final Instant NOW = Instant.now();

  static KeyPair keys(String algorithm, Object spec) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
    if (spec instanceof Integer bits) {
      g.initialize(bits);
    } else {
      g.initialize(new ECGenParameterSpec((String) spec));
    }
    return g.generateKeyPair();
  }

  static PKCS10CertificationRequest csr(KeyPair signer, KeyPair subject, String alg)
      throws Exception {
    return new JcaPKCS10CertificationRequestBuilder(
            new X500Name("CN=admin,O=someone-else"), subject.getPublic())
        .build(new JcaContentSignerBuilder(alg).build(signer.getPrivate()));
  }

  static byte[] pem(PKCS10CertificationRequest csr) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(csr);
    }
    return out.toString().getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void signsACsrIntoAClientCertificateThatChainsToTheCaAndNamesTheCluster() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create(ORG, NOW);
    KeyPair agent = keys("EC", "secp256r1");
    var key = CertificateAuthority.publicKeyOf(pem(csr(agent, agent, "SHA256withECDSA")));
    X509Certificate cert =
        ca.issue(key, CLUSTER, BigInteger.valueOf(42), NOW, NOW.plus(Duration.ofHours(24)));

    // A standard PKIX validation with the CA as the only anchor accepts it.
    PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca.certificate(), null)));
    params.setRevocationEnabled(false);
    CertPathValidator.getInstance("PKIX")
        .validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(cert)), params);
    assertThat(ca.signed(cert)).isTrue();
    // The CSR asked for CN=admin; the hub decides the subject.
    assertThat(CertificateAuthority.subjectOf(cert))
        .contains(new CertificateAuthority.Subject(ORG, CLUSTER));
    assertThat(cert.getSubjectAlternativeNames())
        .anySatisfy(
            san -> assertThat(san.get(1)).isEqualTo(CertificateAuthority.uri(ORG, CLUSTER)));
    assertThat(cert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
    assertThat(cert.getBasicConstraints()).isEqualTo(-1);
    assertThat(cert.getPublicKey()).isEqualTo(agent.getPublic());
    assertThat(CertificateAuthority.issuerOrg(cert)).contains(ORG);
  }

  @Test
  void aCertificateExpiresAtItsNotAfter() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create(ORG, NOW);
    KeyPair agent = keys("EC", "secp256r1");
    X509Certificate cert =
        ca.issue(agent.getPublic(), CLUSTER, BigInteger.TEN, NOW, NOW.plusSeconds(3600));
    cert.checkValidity(Date.from(NOW.plusSeconds(3599)));
    assertThatThrownBy(() -> cert.checkValidity(Date.from(NOW.plusSeconds(3601))))
        .isInstanceOf(CertificateExpiredException.class);
  }

  @Test
  void anotherOrganizationsCaDidNotSignIt() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create(ORG, NOW);
    CertificateAuthority other = CertificateAuthority.create(UUID.randomUUID(), NOW);
    KeyPair agent = keys("EC", "secp256r1");
    X509Certificate cert =
        other.issue(agent.getPublic(), CLUSTER, BigInteger.TEN, NOW, NOW.plusSeconds(60));
    assertThat(ca.signed(cert)).isFalse();
  }

  @Test
  void theCaSurvivesStorage() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create(ORG, NOW);
    CertificateAuthority loaded =
        CertificateAuthority.load(ORG, ca.certificatePem(), ca.privateKeyPkcs8());
    KeyPair agent = keys("EC", "secp256r1");
    X509Certificate cert =
        loaded.issue(agent.getPublic(), CLUSTER, BigInteger.TEN, NOW, NOW.plusSeconds(60));
    assertThat(ca.signed(cert)).isTrue();
    assertThat(ca.certificate().getBasicConstraints()).isZero();
  }

  @Test
  void acceptsDerAndRsaCsrs() throws Exception {
    KeyPair rsa = keys("RSA", 2048);
    assertThat(CertificateAuthority.publicKeyOf(csr(rsa, rsa, "SHA256withRSA").getEncoded()))
        .isEqualTo(rsa.getPublic());
  }

  @Test
  void refusesGarbageOversizedWeakAndForgedCsrs() throws Exception {
    assertThatThrownBy(() -> CertificateAuthority.publicKeyOf(new byte[0]))
        .isInstanceOf(CertificateAuthority.BadCsr.class)
        .hasMessage("is empty");
    assertThatThrownBy(() -> CertificateAuthority.publicKeyOf("not a csr".getBytes()))
        .hasMessage("is not a PKCS#10 certificate request");
    assertThatThrownBy(
            () ->
                CertificateAuthority.publicKeyOf(
                    "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".getBytes()))
        .hasMessage("is not a PEM CERTIFICATE REQUEST");
    assertThatThrownBy(() -> CertificateAuthority.publicKeyOf(new byte[9000]))
        .hasMessageContaining("larger than 8192 bytes");
    KeyPair weak = keys("RSA", 1024);
    assertThatThrownBy(
            () -> CertificateAuthority.publicKeyOf(csr(weak, weak, "SHA256withRSA").getEncoded()))
        .hasMessageContaining("RSA key of 1024 bits");
    // Signed with a key other than the one it asks a certificate for: no proof of possession.
    KeyPair a = keys("EC", "secp256r1");
    KeyPair b = keys("EC", "secp256r1");
    assertThatThrownBy(
            () -> CertificateAuthority.publicKeyOf(csr(a, b, "SHA256withECDSA").getEncoded()))
        .hasMessage("has a signature that does not verify");
  }
}

package dev.gitopshq.agent.link;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.identity.ClientCredential;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest;
import org.bouncycastle.util.io.pem.PemReader;
import org.junit.jupiter.api.Test;

public class ClientKeysTest {

  /** A certificate for the key, as the hub's CA would sign it (self-signed here). */
  public static ClientCredential credential(KeyPair key, Instant from, Duration life)
      throws Exception {
    X509Certificate cert =
        new JcaX509CertificateConverter()
            .getCertificate(
                new JcaX509v3CertificateBuilder(
                        new X500Name("CN=test CA"),
                        BigInteger.valueOf(from.toEpochMilli()),
                        Date.from(from),
                        Date.from(from.plus(life)),
                        new X500Name("CN=cluster"),
                        key.getPublic())
                    .build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate())));
    StringWriter pem = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(pem)) {
      w.writeObject(cert);
    }
    return new ClientCredential(
        ClientKeys.keyPem(key.getPrivate()), pem.toString(), pem.toString());
  }

  @Test
  void theCsrCarriesTheNewKeyAndProvesItsPossession() throws Exception {
    KeyPair key = ClientKeys.newKey();
    byte[] der;
    try (PemReader r =
        new PemReader(new StringReader(ClientKeys.csr(key).toString(StandardCharsets.US_ASCII)))) {
      der = r.readPemObject().getContent();
    }
    JcaPKCS10CertificationRequest csr = new JcaPKCS10CertificationRequest(der);
    assertThat(csr.getPublicKey()).isEqualTo(key.getPublic());
    assertThat(
            csr.isSignatureValid(
                new JcaContentVerifierProviderBuilder().build(csr.getSubjectPublicKeyInfo())))
        .isTrue();
  }

  @Test
  void presentsTheCredentialInUseUnderItsSerialAndNothingWithoutOne() throws Exception {
    ClientKeys keys = new ClientKeys();
    assertThat(keys.chooseClientAlias(new String[] {"EC"}, null, null)).isNull();

    KeyPair key = ClientKeys.newKey();
    ClientCredential first = credential(key, Instant.now(), Duration.ofHours(24));
    keys.use(first);
    String alias = keys.chooseEngineClientAlias(new String[] {"EC"}, null, null);
    assertThat(alias).isEqualTo("agent-" + first.serial());
    assertThat(keys.getPrivateKey(alias)).isEqualTo(key.getPrivate());
    assertThat(keys.getCertificateChain(alias)).containsExactly(first.certificate());

    // A renewed credential gets a new alias: a TLS stack caching by alias cannot present the old.
    KeyPair next = ClientKeys.newKey();
    ClientCredential renewed = credential(next, Instant.now().plusSeconds(5), Duration.ofHours(24));
    keys.use(renewed);
    assertThat(keys.chooseClientAlias(new String[] {"EC"}, null, null))
        .isEqualTo("agent-" + renewed.serial())
        .isNotEqualTo(alias);
    assertThat(keys.getPrivateKey(alias)).isNull();

    keys.use(null);
    assertThat(keys.presenting()).isFalse();
  }

  @Test
  void aCredentialRenewsTwoThirdsIntoItsLifetimeAndHidesItsKey() throws Exception {
    Instant from = Instant.parse("2026-01-01T00:00:00Z");
    ClientCredential c = credential(ClientKeys.newKey(), from, Duration.ofHours(24));
    assertThat(c.renewAt()).isEqualTo(from.plus(Duration.ofHours(16)));
    assertThat(c.toString()).doesNotContain("PRIVATE KEY").contains("key=<redacted>");
  }
}

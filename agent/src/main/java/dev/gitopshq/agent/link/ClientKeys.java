package dev.gitopshq.agent.link;

import com.google.protobuf.ByteString;
import dev.gitopshq.agent.identity.ClientCredential;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemReader;

/**
 * The agent's client key material for mutual TLS with the hub. It makes a fresh ECDSA P-256 key and
 * a CSR for it (for Register, and for every renewal), and it is the channel's key manager: each new
 * TLS connection presents the credential {@link #use set} last. Each credential gets its own alias
 * (its serial), so a TLS stack that caches key material by alias never presents an old one.
 */
public final class ClientKeys extends X509ExtendedKeyManager {

  private record Current(String alias, PrivateKey key, X509Certificate[] chain) {}

  private volatile Current current;

  /** A new key pair for a CSR. */
  public static KeyPair newKey() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("ECDSA P-256 is not available", e);
    }
  }

  /** A PKCS#10 CSR (PEM) for the key; the hub ignores the subject and sets its own. */
  public static ByteString csr(KeyPair key) {
    try {
      return ByteString.copyFrom(
          pem(
              new JcaPKCS10CertificationRequestBuilder(
                      new X500Name("CN=gitopshq-agent"), key.getPublic())
                  .build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate()))),
          StandardCharsets.US_ASCII);
    } catch (OperatorCreationException e) {
      throw new IllegalStateException("cannot sign a CSR", e);
    }
  }

  /** The private key as PKCS#8 PEM, for the identity store. */
  public static String keyPem(PrivateKey key) {
    try {
      return pem(new JcaPKCS8Generator(key, null).generate());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(Object o) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return out.toString();
  }

  /**
   * Presents this credential on new TLS connections from now on; null presents none.
   *
   * @throws IllegalArgumentException when its key cannot be read
   */
  public void use(ClientCredential credential) {
    if (credential == null) {
      current = null;
      return;
    }
    current =
        new Current(
            "agent-" + credential.serial(),
            privateKey(credential.keyPem()),
            new X509Certificate[] {credential.certificate()});
  }

  /** Whether a credential is in use. */
  public boolean presenting() {
    return current != null;
  }

  private static PrivateKey privateKey(String pem) {
    try (PemReader r = new PemReader(new StringReader(pem))) {
      PemObject o = r.readPemObject();
      if (o == null) {
        throw new IllegalArgumentException("the client key is not PEM");
      }
      byte[] der = o.getContent();
      for (String algorithm : new String[] {"EC", "RSA"}) {
        try {
          return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
          // Try the next algorithm.
        }
      }
      throw new IllegalArgumentException("the client key is neither an EC nor an RSA PKCS#8 key");
    } catch (IOException e) {
      throw new IllegalArgumentException("the client key is not readable PEM");
    }
  }

  private String alias() {
    Current c = current;
    return c == null ? null : c.alias();
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return alias();
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return alias();
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    String alias = alias();
    return alias == null ? new String[0] : new String[] {alias};
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Current c = current;
    return c != null && c.alias().equals(alias) ? c.chain().clone() : null;
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Current c = current;
    return c != null && c.alias().equals(alias) ? c.key() : null;
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return new String[0];
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return null;
  }
}

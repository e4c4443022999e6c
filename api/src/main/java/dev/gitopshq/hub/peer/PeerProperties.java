package dev.gitopshq.hub.peer;

import dev.gitopshq.hub.config.GrpcTls;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Forwarding between hub replicas ({@code gitopshq.peer.*}).
 *
 * @param key the installation's peer key, the same on every replica (GITOPSHQ_PEER_KEY, at least 32
 *     characters of printable ASCII); unset: the replica serves no peer port and forwards nothing,
 *     so a request for an agent connected to another replica answers 409
 * @param port the peer gRPC port (GITOPSHQ_PEER_PORT, 50052; 0 picks a free one)
 * @param address the host other replicas reach this one at (GITOPSHQ_PEER_ADDRESS; default this
 *     host's first address, e.g. the pod IP); the bound port is appended
 * @param tlsCertFile PEM certificate chain this replica serves the peer port with and presents to
 *     the peers it dials (GITOPSHQ_PEER_TLS_CERT); with the key and CA: mutual TLS, else plaintext
 * @param tlsKeyFile its PEM private key (GITOPSHQ_PEER_TLS_KEY)
 * @param tlsCaFile the PEM CA bundle peers' certificates must chain to, both ways
 *     (GITOPSHQ_PEER_TLS_CA); best a CA that signs peer certificates only
 * @param tlsServerName the name every replica's peer certificate carries, checked instead of the
 *     address dialed (GITOPSHQ_PEER_TLS_SERVER_NAME; replicas dial pod IPs, which certificates
 *     rarely name); empty: the address's host is checked
 */
@ConfigurationProperties("gitopshq.peer")
public record PeerProperties(
    String key,
    Integer port,
    String address,
    String tlsCertFile,
    String tlsKeyFile,
    String tlsCaFile,
    String tlsServerName) {
  /** The shortest peer key accepted. */
  public static final int MIN_KEY_LENGTH = 32;

  public PeerProperties {
    port = port == null || port < 0 ? 50052 : port;
    key = blankToNull(key);
    address = blankToNull(address);
    tlsCertFile = blankToNull(tlsCertFile);
    tlsKeyFile = blankToNull(tlsKeyFile);
    tlsCaFile = blankToNull(tlsCaFile);
    tlsServerName = blankToNull(tlsServerName);
  }

  /** Whether forwarding is on. */
  public boolean enabled() {
    return key != null;
  }

  /**
   * Whether the peer port serves and dials with mutual TLS: certificate, key and CA all set.
   *
   * @throws IllegalStateException when only some of the three are set, naming the missing ones: a
   *     half-configured port would otherwise run in plaintext without anyone noticing
   */
  public boolean tls() {
    List<String> missing = new ArrayList<>();
    if (tlsCertFile == null) {
      missing.add("GITOPSHQ_PEER_TLS_CERT");
    }
    if (tlsKeyFile == null) {
      missing.add("GITOPSHQ_PEER_TLS_KEY");
    }
    if (tlsCaFile == null) {
      missing.add("GITOPSHQ_PEER_TLS_CA");
    }
    if (missing.size() == 3) {
      return false;
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "the peer port's TLS needs GITOPSHQ_PEER_TLS_CERT, GITOPSHQ_PEER_TLS_KEY and"
              + " GITOPSHQ_PEER_TLS_CA together; missing: "
              + String.join(", ", missing));
    }
    return true;
  }

  private static String blankToNull(String s) {
    return GrpcTls.configured(s) ? s : null;
  }
}

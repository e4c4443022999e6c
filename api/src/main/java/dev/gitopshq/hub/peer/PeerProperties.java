package dev.gitopshq.hub.peer;

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
 */
@ConfigurationProperties("gitopshq.peer")
public record PeerProperties(String key, Integer port, String address) {
  /** The shortest peer key accepted. */
  public static final int MIN_KEY_LENGTH = 32;

  public PeerProperties {
    port = port == null || port < 0 ? 50052 : port;
    key = key == null || key.isBlank() ? null : key;
    address = address == null || address.isBlank() ? null : address;
  }

  /** Whether forwarding is on. */
  public boolean enabled() {
    return key != null;
  }
}

package dev.gitopshq.hub.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PeerKeyTest {
  @Test
  void aShortOrNonAsciiKeyStopsTheReplicaWithoutPrintingIt() {
    String shortKey = "only-twenty-chars-xx";
    assertThatThrownBy(() -> new PeerKey(shortKey))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("at least 32")
        .hasMessageNotContaining(shortKey);
    String spaced = "a key with spaces that is long enough to pass";
    assertThatThrownBy(() -> new PeerKey(spaced))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageNotContaining(spaced);
  }

  @Test
  void forwardingIsOffWithoutAKey() {
    assertThat(new PeerProperties(null, null, null, null, null, null, null).enabled()).isFalse();
    assertThat(new PeerProperties("  ", null, null, null, null, null, null).enabled()).isFalse();
    PeerProperties on =
        new PeerProperties("k".repeat(32), null, "10.0.0.7", null, null, null, null);
    assertThat(on.enabled()).isTrue();
    assertThat(on.port()).isEqualTo(50052);
    assertThat(on.tls()).isFalse();
  }

  @Test
  void aHalfConfiguredPeerTlsStopsTheReplicaNamingWhatIsMissing() {
    PeerProperties half =
        new PeerProperties("k".repeat(32), null, null, "/tls/peer.crt", "/tls/peer.key", " ", null);
    assertThatThrownBy(half::tls)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageEndingWith("missing: GITOPSHQ_PEER_TLS_CA");
    assertThat(
            new PeerProperties(
                    "k".repeat(32), null, null, "/tls/peer.crt", "/tls/peer.key", "/tls/ca.crt", "")
                .tls())
        .isTrue();
  }
}

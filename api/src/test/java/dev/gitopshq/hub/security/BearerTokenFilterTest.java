package dev.gitopshq.hub.security;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The WebSocket handshake's token travels as a subprotocol, never in the URL. */
class BearerTokenFilterTest {
  @Test
  void readsTheTokenFromTheBearerSubprotocol() {
    assertThat(BearerTokenFilter.subprotocolToken("gitopshq.logs.v1, bearer.ghqo_abc"))
        .isEqualTo("ghqo_abc");
    assertThat(BearerTokenFilter.subprotocolToken("bearer.ghqp_1,gitopshq.logs.v1"))
        .isEqualTo("ghqp_1");
  }

  @Test
  void ignoresHeadersWithoutATokenOrTooLongToRead() {
    assertThat(BearerTokenFilter.subprotocolToken(null)).isNull();
    assertThat(BearerTokenFilter.subprotocolToken("gitopshq.logs.v1")).isNull();
    assertThat(BearerTokenFilter.subprotocolToken("bearer.")).isNull();
    assertThat(BearerTokenFilter.subprotocolToken("bearer." + "a".repeat(2000))).isNull();
  }
}

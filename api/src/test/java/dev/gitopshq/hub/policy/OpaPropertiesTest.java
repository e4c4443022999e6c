package dev.gitopshq.hub.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OpaPropertiesTest {
  private static final URI OPA = URI.create("http://127.0.0.1:8181");

  @Test
  void aMisspeltProtocolStopsTheHubFromStartingNamingTheChoices() {
    assertThatThrownBy(
            () -> new OpaProperties(OPA, Duration.ofSeconds(5), "", "http2", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'h2c'")
        .hasMessageContaining("'http1'");
  }

  @Test
  void printsTheProtocolButNeverTheToken() {
    assertThat(
            new OpaProperties(
                    OPA, Duration.ofSeconds(5), "opa-s3cret", "http1", Duration.ofSeconds(1))
                .toString())
        .contains("protocol=http1")
        .contains("token=(set)")
        .doesNotContain("opa-s3cret");
  }
}

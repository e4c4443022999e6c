package dev.gitopshq.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.identity.ClientCredential;
import dev.gitopshq.agent.link.ClientKeys;
import dev.gitopshq.agent.link.ClientKeysTest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class CertificateRenewalTest {
  static final Instant ISSUED = Instant.parse("2026-01-01T00:00:00Z");

  static CertificateRenewal at(Instant now) {
    return new CertificateRenewal(null, null, Clock.fixed(now, ZoneOffset.UTC));
  }

  @Test
  void renewsOnceTwoThirdsOfTheLifetimeHavePassedAndAsksForOneWithoutACertificate()
      throws Exception {
    ClientCredential c =
        ClientKeysTest.credential(ClientKeys.newKey(), ISSUED, Duration.ofHours(24));
    AgentIdentity identity =
        new AgentIdentity("c1", "ghqa_" + "a".repeat(64), "hub:50051", ISSUED, c);
    assertThat(at(ISSUED.plus(Duration.ofHours(15))).due(identity)).isFalse();
    assertThat(at(ISSUED.plus(Duration.ofHours(16))).due(identity)).isTrue();
    assertThat(at(ISSUED.plus(Duration.ofHours(30))).due(identity)).as("expired").isTrue();
    assertThat(at(ISSUED).due(identity.withCertificate(null))).isTrue();
  }
}

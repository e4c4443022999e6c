package dev.gitopshq.hub.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VersionCompatibilityTest {
  @Test
  void sameMajorIsAcceptedAnotherMajorIsRefusedWithWhatToDo() {
    assertThat(VersionCompatibility.refusal("0.1.0", "0.4.2")).isEmpty();
    assertThat(VersionCompatibility.refusal("v0.3.9-rc1", "0.4.2")).isEmpty();
    assertThat(VersionCompatibility.refusal("1.0.0", "0.4.2"))
        .hasValueSatisfying(r -> assertThat(r).contains("major versions differ").contains("0.x"));
    assertThat(VersionCompatibility.refusal("latest", "0.4.2"))
        .hasValueSatisfying(r -> assertThat(r).contains("semantic version"));
  }

  @Test
  void theRefusalForAnUnauthenticatedCallerDoesNotNameTheHubsVersion() {
    assertThat(VersionCompatibility.anonymousRefusal("0.1.0", "0.4.2")).isEmpty();
    assertThat(VersionCompatibility.anonymousRefusal("3.0.0", "2.4.2"))
        .hasValueSatisfying(
            r ->
                assertThat(r)
                    .contains("major versions differ")
                    .doesNotContain("2.4.2")
                    .doesNotContain("2.x"));
    assertThat(VersionCompatibility.anonymousRefusal("latest", "2.4.2"))
        .hasValueSatisfying(r -> assertThat(r).contains("semantic version"));
  }

  @Test
  void driftMeansMoreThanOneMinorBehind() {
    assertThat(VersionCompatibility.drifted("0.3.0", "0.4.0")).isFalse();
    assertThat(VersionCompatibility.drifted("0.2.5", "0.4.0")).isTrue();
    assertThat(VersionCompatibility.drifted("0.5.0", "0.4.0")).isFalse();
    assertThat(VersionCompatibility.drifted(null, "0.4.0")).isFalse();
  }

  @org.junit.jupiter.api.Test
  void theVersionBadgeSaysCurrentBehindOrUnsupported() {
    org.assertj.core.api.Assertions.assertThat(VersionCompatibility.status("0.3.1", "0.3.0"))
        .isEqualTo("current");
    org.assertj.core.api.Assertions.assertThat(VersionCompatibility.status("0.4.0", "0.3.0"))
        .isEqualTo("current");
    org.assertj.core.api.Assertions.assertThat(VersionCompatibility.status("0.2.9", "0.3.0"))
        .isEqualTo("behind");
    org.assertj.core.api.Assertions.assertThat(VersionCompatibility.status("1.0.0", "0.3.0"))
        .isEqualTo("unsupported");
    org.assertj.core.api.Assertions.assertThat(VersionCompatibility.status("banana", "0.3.0"))
        .isEqualTo("unsupported");
    org.assertj.core.api.Assertions.assertThat(VersionCompatibility.status(null, "0.3.0")).isNull();
  }
}

package dev.gitopshq.agent.v1;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClusterAddressesTest {
  @Test
  void theApiServersUrlAndTheKubeletsAddressAreGoneTheReasonStays() {
    String fabric8 =
        "Failure executing: GET at:"
            + " https://10.96.0.1:6443/api/v1/namespaces/demo/pods/web/log?follow=true. Message:"
            + " Get \"https://172.18.0.2:10250/containerLogs/demo/web/app\": dial tcp"
            + " 172.18.0.2:10250: connect: connection refused.";
    String clean = ClusterAddresses.redact(fabric8);
    assertThat(clean)
        .doesNotContain("10.96.0.1")
        .doesNotContain("6443")
        .doesNotContain("172.18.0.2")
        .doesNotContain("/api/v1")
        .doesNotContain("10250")
        .contains("connection refused")
        .contains(ClusterAddresses.REDACTED);
  }

  @Test
  void ipv6AndOtherSchemesAreGoneTooAndPlainTextIsKept() {
    assertThat(ClusterAddresses.redact("dial tcp [fd00::1]:6443: i/o timeout"))
        .isEqualTo("dial tcp " + ClusterAddresses.REDACTED + ": i/o timeout");
    assertThat(ClusterAddresses.redact("wss://kube.internal:443/api/v1/watch failed"))
        .isEqualTo(ClusterAddresses.REDACTED + " failed");
    assertThat(ClusterAddresses.redact("pods \"web\" not found"))
        .isEqualTo("pods \"web\" not found");
    assertThat(ClusterAddresses.redact(null)).isEmpty();
  }
}

package dev.gitopshq.activities.notify;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which addresses a notification webhook may not point at when private targets are refused. */
class WebhookAddressesTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "192.0.0.8",
        "192.0.2.10",
        "198.18.0.1",
        "198.19.255.254",
        "198.51.100.7",
        "203.0.113.9",
        "240.0.0.1",
        "255.255.255.255",
        "224.0.0.251",
        "::1",
        "fd00::1",
        "fe80::1",
        "::ffff:127.0.0.1",
        "64:ff9b::a00:1",
        "64:ff9b::c612:1",
        "::127.0.0.1",
        "::a00:1",
        "100::1",
        "2001::1",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        "2001:db8::1",
        "3fff::1",
        "64:ff9b:1::a00:1",
        "5f00::1",
        "2002:7f00:1::1",
        "2002:a9fe:a9fe::1"
      })
  void refusesAddressesThatAreNotThePublicInternet(String address) throws Exception {
    assertThat(WebhookAddresses.isPrivate(InetAddress.getByName(address))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "93.184.216.34",
        "198.20.0.1",
        "2606:4700::1111",
        "64:ff9b::5db8:d822",
        "2002:5db8:d822::1",
        "2001:4860::8888"
      })
  void acceptsPublicAddresses(String address) throws Exception {
    assertThat(WebhookAddresses.isPrivate(InetAddress.getByName(address))).isFalse();
  }
}

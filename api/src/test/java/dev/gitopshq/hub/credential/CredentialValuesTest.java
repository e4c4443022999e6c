package dev.gitopshq.hub.credential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a credential's values must be before the hub stores them, per type. */
class CredentialValuesTest {

  static String pem(String name) throws IOException {
    try (InputStream in = CredentialValuesTest.class.getResourceAsStream("/credentials/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }

  /** The fields the checks reject, or empty when the values pass. */
  static List<String> rejected(String type, Map<String, String> data) {
    Checks c = new Checks();
    CredentialValues.Checked checked = CredentialValues.check(c, type, data);
    ApiException e = catchThrowableOfType(ApiException.class, c::throwIfInvalid);
    if (e == null) {
      assertThat(checked).isNotNull();
      return List.of();
    }
    return e.error().errors().stream().map(ApiError.FieldError::field).toList();
  }

  @Test
  void acceptsADockerConfigWithAuths() {
    assertThat(
            rejected(
                "dockerconfigjson",
                Map.of(".dockerconfigjson", "{\"auths\":{\"r.example\":{\"auth\":\"eDp5\"}}}")))
        .isEmpty();
  }

  @Test
  void rejectsADockerConfigWithoutAuthsOrNotJson() {
    assertThat(rejected("dockerconfigjson", Map.of(".dockerconfigjson", "{\"x\":1}")))
        .containsExactly("data..dockerconfigjson");
    assertThat(rejected("dockerconfigjson", Map.of(".dockerconfigjson", "not json")))
        .containsExactly("data..dockerconfigjson");
    assertThat(rejected("dockerconfigjson", Map.of("config.json", "{\"auths\":{}}")))
        .containsExactly("data");
  }

  @Test
  void acceptsAMatchingCertificateAndKeyAndReportsTheFingerprint() throws IOException {
    Checks c = new Checks();
    CredentialValues.Checked rsa =
        CredentialValues.check(
            c, "tls", Map.of("tls.crt", pem("rsa.crt"), "tls.key", pem("rsa.key")));
    assertThat(c.ok()).isTrue();
    assertThat(rsa.fingerprint())
        .isEqualTo(
            "SHA256:C7:DB:B1:35:5F:6B:14:A2:FE:5A:D9:52:DC:90:A5:75:1E:F5:EB:C5:5F:45:45:F5:DF:2D:07:99:34:BE:60:B4");
    assertThat(rsa.keyNames()).containsExactlyInAnyOrder("tls.crt", "tls.key");
    // The traditional PKCS#1 form of the same key, and an EC pair.
    assertThat(rejected("tls", Map.of("tls.crt", pem("rsa.crt"), "tls.key", pem("rsa-pkcs1.key"))))
        .isEmpty();
    assertThat(rejected("tls", Map.of("tls.crt", pem("ec.crt"), "tls.key", pem("ec.key"))))
        .isEmpty();
  }

  @Test
  void rejectsAKeyOfAnotherCertificate() throws IOException {
    assertThat(rejected("tls", Map.of("tls.crt", pem("rsa.crt"), "tls.key", pem("other.key"))))
        .containsExactly("data.tls.key");
    assertThat(rejected("tls", Map.of("tls.crt", pem("rsa.crt"), "tls.key", pem("ec.key"))))
        .containsExactly("data.tls.key");
  }

  @Test
  void rejectsSomethingThatIsNotACertificate() throws IOException {
    assertThat(rejected("tls", Map.of("tls.crt", "hello", "tls.key", pem("rsa.key"))))
        .containsExactly("data.tls.crt");
    assertThat(rejected("tls", Map.of("tls.crt", pem("rsa.crt")))).containsExactly("data");
  }

  @Test
  void opaqueKeysMustBeSecretKeys() {
    assertThat(rejected("opaque", Map.of("api-token", "x", "config.yaml", "a: 1"))).isEmpty();
    assertThat(rejected("opaque", Map.of("bad key", "x"))).containsExactly("data");
    assertThat(rejected("opaque", Map.of("a/b", "x"))).containsExactly("data");
    assertThat(rejected("opaque", Map.of())).containsExactly("data");
  }

  @Test
  void boundsTheTotalSize() {
    Map<String, String> big = new HashMap<>();
    big.put("a", "x".repeat(CredentialValues.MAX_TOTAL_BYTES / 2));
    big.put("b", "x".repeat(CredentialValues.MAX_TOTAL_BYTES / 2));
    assertThat(rejected("opaque", big)).isEmpty();
    big.put("c", "x");
    assertThat(rejected("opaque", big)).containsExactly("data");
  }

  @Test
  void rejectsAnUnknownType() {
    assertThat(rejected("ssh", Map.of("k", "v"))).containsExactly("type");
  }

  @Test
  void messagesNeverRepeatAValue() {
    Checks c = new Checks();
    CredentialValues.check(c, "dockerconfigjson", Map.of(".dockerconfigjson", "s3cr3t-value"));
    ApiException e = catchThrowableOfType(ApiException.class, c::throwIfInvalid);
    assertThat(e.error().toString()).doesNotContain("s3cr3t-value");
  }
}

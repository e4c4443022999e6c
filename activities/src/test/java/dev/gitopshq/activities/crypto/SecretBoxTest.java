package dev.gitopshq.activities.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class SecretBoxTest {
  private static final byte[] SECRET = "webhook-secret-0123".getBytes(StandardCharsets.UTF_8);

  @Test
  void roundTripsAndNeverRepeatsACiphertext() {
    SecretBox box = new SecretBox(SecretBox.newKey());
    byte[] a = box.seal(SECRET, "project-webhook:p1");
    byte[] b = box.seal(SECRET, "project-webhook:p1");
    assertThat(box.open(a, "project-webhook:p1")).isEqualTo(SECRET);
    assertThat(box.open(b, "project-webhook:p1")).isEqualTo(SECRET);
    assertThat(a).isNotEqualTo(b);
    assertThat(new String(a, StandardCharsets.ISO_8859_1)).doesNotContain("webhook-secret");
  }

  @Test
  void detectsTampering() {
    SecretBox box = new SecretBox(SecretBox.newKey());
    byte[] sealed = box.seal(SECRET, "ctx");
    for (int i = 1; i < sealed.length; i++) {
      byte[] t = sealed.clone();
      t[i] ^= 0x01;
      assertThatThrownBy(() -> box.open(t, "ctx")).isInstanceOf(SecretBox.SecretBoxException.class);
    }
    byte[] truncated = java.util.Arrays.copyOf(sealed, 10);
    assertThatThrownBy(() -> box.open(truncated, "ctx"))
        .isInstanceOf(SecretBox.SecretBoxException.class);
  }

  @Test
  void refusesAnotherKeyOrAnotherContext() {
    byte[] key = SecretBox.newKey();
    SecretBox box = SecretBox.ofBase64(Base64.getEncoder().encodeToString(key));
    byte[] sealed = box.seal(SECRET, "project-webhook:p1");
    assertThatThrownBy(() -> new SecretBox(SecretBox.newKey()).open(sealed, "project-webhook:p1"))
        .isInstanceOf(SecretBox.SecretBoxException.class)
        .hasMessageNotContaining("webhook-secret");
    assertThatThrownBy(() -> box.open(sealed, "project-webhook:p2"))
        .isInstanceOf(SecretBox.SecretBoxException.class);
    assertThat(new SecretBox(key).open(sealed, "project-webhook:p1")).isEqualTo(SECRET);
  }

  @Test
  void refusesKeysOfTheWrongSize() {
    assertThatThrownBy(() -> new SecretBox(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SecretBox.ofBase64("not base64!"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

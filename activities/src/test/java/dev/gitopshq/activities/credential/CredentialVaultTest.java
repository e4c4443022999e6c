package dev.gitopshq.activities.credential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.crypto.SecretBox;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A credential's values open only for the organization and credential id they were sealed for. */
class CredentialVaultTest {
  final CredentialVault vault = new CredentialVault(new SecretBox(SecretBox.newKey()));
  final UUID org = UUID.randomUUID();
  final UUID id = UUID.randomUUID();

  static Map<String, byte[]> values() {
    Map<String, byte[]> v = new LinkedHashMap<>();
    v.put("tls.crt", "certificate".getBytes(StandardCharsets.UTF_8));
    v.put("tls.key", "canary-private-key".getBytes(StandardCharsets.UTF_8));
    return v;
  }

  static CredentialRow row(UUID org, UUID id, byte[] sealed) {
    Instant now = Instant.now();
    return new CredentialRow(
        id,
        org,
        "c",
        "tls",
        "",
        sealed,
        CredentialVault.KEY_ID,
        1,
        List.of(),
        null,
        "me",
        now,
        now);
  }

  @Test
  void opensWhatItSealedForTheSameOrganizationAndId() {
    byte[] sealed = vault.seal(org, id, values());
    Map<String, byte[]> opened = vault.open(row(org, id, sealed));
    assertThat(opened.keySet()).containsExactly("tls.crt", "tls.key");
    assertThat(new String(opened.get("tls.key"), StandardCharsets.UTF_8))
        .isEqualTo("canary-private-key");
    assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain("canary");
  }

  @Test
  void aRowCopiedToAnotherCredentialDoesNotOpen() {
    byte[] sealed = vault.seal(org, id, values());
    assertThatThrownBy(() -> vault.open(row(org, UUID.randomUUID(), sealed)))
        .isInstanceOf(SecretBox.SecretBoxException.class)
        .hasMessageNotContaining("canary");
  }

  @Test
  void aRowCopiedToAnotherOrganizationDoesNotOpen() {
    byte[] sealed = vault.seal(org, id, values());
    assertThatThrownBy(() -> vault.open(row(UUID.randomUUID(), id, sealed)))
        .isInstanceOf(SecretBox.SecretBoxException.class);
  }

  @Test
  void anotherKeyDoesNotOpenIt() {
    byte[] sealed = vault.seal(org, id, values());
    CredentialVault other = new CredentialVault(new SecretBox(SecretBox.newKey()));
    assertThatThrownBy(() -> other.open(row(org, id, sealed)))
        .isInstanceOf(SecretBox.SecretBoxException.class);
  }

  @Test
  void everySealUsesAFreshNonce() {
    assertThat(vault.seal(org, id, values())).isNotEqualTo(vault.seal(org, id, values()));
  }
}

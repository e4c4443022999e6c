package dev.gitopshq.activities.credential;

import dev.gitopshq.activities.crypto.SecretBox;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Seals and opens a credential's values with the hub's one encryption key ({@link SecretBox},
 * AES-256-GCM), binding the organization and the credential id as associated data: a ciphertext
 * copied to another credential or organization fails to open. The values are serialized as a count
 * followed by (key, length, bytes) entries; the buffers holding plaintext are cleared after use.
 */
public final class CredentialVault {
  /** The name recorded with each sealed value: the hub's encryption key. */
  public static final String KEY_ID = "gitopshq.encryption-key";

  private final SecretBox box;

  public CredentialVault(SecretBox box) {
    this.box = box;
  }

  public byte[] seal(UUID orgId, UUID credentialId, Map<String, byte[]> values) {
    byte[] plain = serialize(values);
    try {
      return box.seal(plain, CredentialRow.sealContext(orgId, credentialId));
    } finally {
      Arrays.fill(plain, (byte) 0);
    }
  }

  /**
   * Opens a stored credential's values.
   *
   * @throws SecretBox.SecretBoxException when the row was sealed for another organization or id,
   *     under another key, or was changed
   */
  public Map<String, byte[]> open(CredentialRow row) {
    byte[] plain = box.open(row.ciphertext(), CredentialRow.sealContext(row.orgId(), row.id()));
    try {
      return deserialize(plain);
    } finally {
      Arrays.fill(plain, (byte) 0);
    }
  }

  private static byte[] serialize(Map<String, byte[]> values) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(values.size());
      for (Map.Entry<String, byte[]> e : values.entrySet()) {
        out.writeUTF(e.getKey());
        out.writeInt(e.getValue().length);
        out.write(e.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static Map<String, byte[]> deserialize(byte[] plain) {
    Map<String, byte[]> values = new LinkedHashMap<>();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(plain))) {
      int n = in.readInt();
      for (int i = 0; i < n; i++) {
        String key = in.readUTF();
        int len = in.readInt();
        if (len < 0 || len > plain.length) {
          throw new IllegalStateException("a sealed credential is malformed");
        }
        values.put(key, in.readNBytes(len));
      }
    } catch (IOException e) {
      throw new IllegalStateException("a sealed credential is malformed");
    }
    return values;
  }
}

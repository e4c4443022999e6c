package dev.gitopshq.agent.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.agent.link.ClientKeys;
import dev.gitopshq.agent.link.ClientKeysTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileIdentityStoreTest {

  private static final String TOKEN_A = "ghqa_" + "a".repeat(64);
  private static final String TOKEN_B = "ghqa_" + "b".repeat(64);

  @TempDir Path temp;

  private static AgentIdentity identity(String clusterId, String token) {
    return new AgentIdentity(
        clusterId, token, "hub.example.com:50051", Instant.parse("2025-03-01T12:00:00Z"));
  }

  @Test
  void loadsNothingBeforeTheFirstSave() {
    assertThat(new FileIdentityStore(temp.resolve("agent.json")).load()).isEmpty();
  }

  @Test
  void roundTripsAnIdentityThroughJson() throws IOException {
    FileIdentityStore store = new FileIdentityStore(temp.resolve("agent.json"));
    AgentIdentity saved = identity("9b2f6c1e-0000-4000-8000-000000000001", TOKEN_A);

    store.save(saved);

    assertThat(store.load()).contains(saved);
    assertThat(Files.readString(store.file()))
        .contains(
            "\"clusterId\"",
            "\"agentToken\"",
            "\"hubAddress\"",
            "\"registeredAt\"",
            "2025-03-01T12:00:00Z");
  }

  @Test
  void createsParentDirectoriesAndAnOwnerOnlyFile() throws IOException {
    Path file = temp.resolve("var/lib/gitopshq/identity/agent.json");
    FileIdentityStore store = new FileIdentityStore(file);

    store.save(identity("c1", TOKEN_A));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
        .isEqualTo("rwx------");
  }

  @Test
  void keepsModeSixHundredWhenReplacingAWiderFile() throws IOException {
    Path file = temp.resolve("agent.json");
    Files.writeString(file, "{}");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    new FileIdentityStore(file).save(identity("c1", TOKEN_A));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
  }

  @Test
  void replacesTheFileAtomicallySoReadersNeverSeeATornWrite() throws Exception {
    FileIdentityStore store = new FileIdentityStore(temp.resolve("agent.json"));
    AgentIdentity first = identity("cluster-a", TOKEN_A);
    AgentIdentity second = identity("cluster-b", TOKEN_B);
    store.save(first);
    AtomicBoolean writing = new AtomicBoolean(true);
    List<Throwable> readerErrors = new ArrayList<>();
    Thread reader =
        new Thread(
            () -> {
              FileIdentityStore readerStore = new FileIdentityStore(store.file());
              while (writing.get()) {
                try {
                  AgentIdentity seen = readerStore.load().orElseThrow();
                  assertThat(seen).isIn(first, second);
                } catch (Throwable e) {
                  synchronized (readerErrors) {
                    readerErrors.add(e);
                  }
                  return;
                }
              }
            });
    reader.start();

    for (int i = 0; i < 300; i++) {
      store.save(i % 2 == 0 ? second : first);
    }
    writing.set(false);
    reader.join();

    // A write that truncates and rewrites in place would let the reader see an empty or
    // half-written file; rename-over-temp-file never does.
    assertThat(readerErrors).isEmpty();
    try (Stream<Path> files = Files.list(temp)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("agent.json");
    }
  }

  @Test
  void clearRemovesTheIdentity() {
    FileIdentityStore store = new FileIdentityStore(temp.resolve("agent.json"));
    store.save(identity("c1", TOKEN_A));

    store.clear();
    store.clear();

    assertThat(store.load()).isEmpty();
  }

  @Test
  void reportsACorruptFileWithoutQuotingIt() throws IOException {
    Path file = temp.resolve("agent.json");
    Files.writeString(file, "{\"agentToken\": \"" + TOKEN_A + "\", ");

    assertThatThrownBy(() -> new FileIdentityStore(file).load())
        .isInstanceOf(IdentityStoreException.class)
        .hasMessageContaining("is not valid JSON")
        .hasMessageNotContaining(TOKEN_A);
  }

  @Test
  void reportsAMissingField() throws IOException {
    Path file = temp.resolve("agent.json");
    Files.writeString(
        file,
        "{\"clusterId\": \"c1\", \"hubAddress\": \"h:1\","
            + " \"registeredAt\": \"2025-03-01T12:00:00Z\"}");

    assertThatThrownBy(() -> new FileIdentityStore(file).load())
        .hasMessageContaining("has no 'agentToken'");
  }

  @Test
  void neverPrintsTheTokenInToString() {
    assertThat(identity("c1", TOKEN_A).toString()).doesNotContain(TOKEN_A).contains("c1");
  }

  @Test
  void keepsTheClientCertificateAndKeyWithTheIdentity() throws Exception {
    FileIdentityStore store = new FileIdentityStore(temp.resolve("agent.json"));
    ClientCredential certificate =
        ClientKeysTest.credential(
            ClientKeys.newKey(), Instant.parse("2026-01-01T00:00:00Z"), Duration.ofHours(24));
    AgentIdentity saved =
        identity("9b2f6c1e-0000-4000-8000-000000000001", TOKEN_A).withCertificate(certificate);

    store.save(saved);

    AgentIdentity loaded = store.load().orElseThrow();
    assertThat(loaded).isEqualTo(saved);
    assertThat(loaded.certificate().serial()).isEqualTo(certificate.serial());
    assertThat(loaded.toString()).doesNotContain("PRIVATE KEY");
    assertThat(Files.readString(store.file())).contains("\"clientCertificatePem\"");
  }
}

package dev.gitopshq.hub.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.hub.HubTestSupport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A hub that generates the first owner's token writes it only to the 0600 file in its data
 * directory and says where it is: the token never reaches standard output or the log, which end up
 * in log files and log collectors.
 */
class BootstrapTokenIT {

  @Test
  void theGeneratedOwnerTokenIsWrittenToTheFileAndNeverPrinted() throws Exception {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.out;
    PrintStream tee =
        new PrintStream(
            new java.io.OutputStream() {
              @Override
              public void write(int b) {
                captured.write(b);
                original.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) {
                captured.write(b, off, len);
                original.write(b, off, len);
              }
            },
            true,
            StandardCharsets.UTF_8);
    System.setOut(tee);
    String org = "boot-" + UUID.randomUUID().toString().substring(0, 8);
    try (HubTestSupport hub =
        new HubTestSupport()
            .property("gitopshq.bootstrap.token", "")
            .property("gitopshq.bootstrap.org-slug", org)
            .property("gitopshq.bootstrap.email", org + "@example.com")
            .start()) {
      Path file = hub.dataDir().resolve("bootstrap-token");
      String token = Files.readString(file).trim();

      assertThat(token).matches("ghqp_[0-9a-f]{64}");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo("rw-------");
      assertThat(hub.get("/api/v2/me", token).status()).isEqualTo(200);
      String out = captured.toString(StandardCharsets.UTF_8);
      assertThat(out).contains("Its API token is in " + file.toAbsolutePath());
      assertThat(out).doesNotContain(token).doesNotContain(token.substring(5, 20));
    } finally {
      System.setOut(original);
    }
  }
}

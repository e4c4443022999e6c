package dev.gitopshq.hub;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A test CA and the gateway's server certificate made by the openssl CLI, as an operator would:
 * {@code ca.crt}, {@code hub.crt} (CN and SAN 127.0.0.1 and localhost, signed by the CA) and {@code
 * hub.key} in a new temporary folder, valid for two days.
 */
public final class GatewayTlsFiles {
  private GatewayTlsFiles() {}

  /** Makes the files in a new temporary folder named after {@code prefix}, and returns it. */
  public static Path create(String prefix) throws Exception {
    Path dir = Files.createTempDirectory(prefix);
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=GitOpsHQ test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt");
    openssl(
        dir,
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "hub.key",
        "-out",
        "hub.csr");
    Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    openssl(
        dir,
        "x509",
        "-req",
        "-in",
        "hub.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "san.ext",
        "-out",
        "hub.crt");
    return dir;
  }

  /** Runs openssl in {@code dir}, failing the test with its output when it fails. */
  public static void openssl(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as("openssl " + String.join(" ", args) + "\n" + out).isZero();
  }
}

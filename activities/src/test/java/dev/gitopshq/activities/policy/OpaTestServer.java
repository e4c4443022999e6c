package dev.gitopshq.activities.policy;

import dev.gitopshq.activities.testing.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real OPA server as a child process on a free loopback port, for tests in any module (shared
 * through the activities test-jar). Nothing stands in for OPA: this is the binary {@code make run}
 * uses.
 *
 * <p>The binary is {@code $GITOPSHQ_OPA_BIN} when set (as {@code make test} does), otherwise what
 * {@code tools/bin-path.sh opa} prints in the repository this test runs from. {@link #stop()} and
 * {@link #start()} again keep the port, so a test can take OPA away and bring it back empty, as a
 * restarted OPA pod would be.
 *
 * <p>It runs locked down as {@code make run} runs it: token authentication with the authorization
 * policy {@code policies/system/authz}, which admits only {@link #token()} (a fresh random one per
 * server); {@link #client()} holds it, and it admits only the calls the hub makes. Tests that need
 * OPA to hold a module the hub did not upload (as one loaded from a file when OPA starts, or by an
 * operator with credentials of their own) use {@link #operatorToken()}, which a test-only addition
 * to the authorization policy admits for every call; nothing the hub runs with has it. The binary
 * is the project's OPA build, without the built-ins that reach outside OPA. It serves cleartext
 * HTTP/2 ({@code --h2c}), as the hub expects; {@link #startNewHttp1Only()} starts one without it.
 */
public final class OpaTestServer implements AutoCloseable {
  private static final Duration STARTUP = Duration.ofSeconds(30);

  private final Path binary;
  private final int port;
  private final Path logFile;
  private final String token;
  private final String operatorToken;
  private final Path tokenData;
  private final Path operatorPolicy;
  private final boolean h2c;
  private volatile Process process;

  private OpaTestServer(Path binary, int port, Path logFile, boolean h2c) throws IOException {
    this.h2c = h2c;
    this.binary = binary;
    this.port = port;
    this.logFile = logFile;
    this.token = "opa-test-" + java.util.UUID.randomUUID();
    this.operatorToken = "opa-test-operator-" + java.util.UUID.randomUUID();
    // OPA's authorization policy reads the SHA-256 of the one token it admits from this data file;
    // the test-only operator's beside it.
    this.tokenData = Files.createTempFile("gitopshq-opa-token-", ".json");
    Files.writeString(
        tokenData,
        "{\"gitopshq_opa\": {\"token_sha256\": \""
            + PolicyText.sha256(token)
            + "\"}, \"gitopshq_opa_test\": {\"operator_token_sha256\": \""
            + PolicyText.sha256(operatorToken)
            + "\"}}");
    this.operatorPolicy = Files.createTempFile("gitopshq-opa-operator-", ".rego");
    Files.writeString(
        operatorPolicy,
        "package system.authz\n\n"
            + "# Tests only: the operator's token may make every call.\n"
            + "allow if crypto.sha256(input.identity) =="
            + " data.gitopshq_opa_test.operator_token_sha256\n");
    // A test JVM that dies without closing this must not leave OPA running.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  Process p = process;
                  if (p != null) {
                    p.destroyForcibly();
                  }
                }));
  }

  /**
   * Starts OPA on a free port, serving cleartext HTTP/2 ({@code --h2c}), and waits until it answers
   * {@code /health}.
   */
  public static OpaTestServer startNew() {
    return startNew(true);
  }

  /** Starts an OPA without {@code --h2c}: HTTP/1.1 only, as an OPA run by hand may be. */
  public static OpaTestServer startNewHttp1Only() {
    return startNew(false);
  }

  private static OpaTestServer startNew(boolean h2c) {
    try {
      OpaTestServer s =
          new OpaTestServer(
              binary(), FreePorts.next(), Files.createTempFile("gitopshq-opa-", ".log"), h2c);
      return s.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot prepare an OPA test server", e);
    }
  }

  /** Starts (again) on the same port; OPA starts empty, with no policy loaded. */
  public synchronized OpaTestServer start() {
    if (process != null && process.isAlive()) {
      return this;
    }
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                binary.toString(),
                "run",
                "--server",
                "--addr",
                "127.0.0.1:" + port,
                "--log-level",
                "error",
                "--skip-version-check",
                "--authentication=token",
                "--authorization=basic"));
    if (h2c) {
      command.add("--h2c");
    }
    command.add(repoRoot().resolve("policies/system/authz/authz.rego").toString());
    command.add(operatorPolicy.toString());
    command.add(tokenData.toString());
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start OPA from " + binary, e);
    }
    Instant deadline = Instant.now().plus(STARTUP);
    try (OpaClient probe = client()) {
      while (!probe.healthy()) {
        if (!process.isAlive() || Instant.now().isAfter(deadline)) {
          String log = readLog();
          stop();
          throw new IllegalStateException(
              "OPA (" + binary + ") did not become healthy on port " + port + ":\n" + log);
        }
        sleep(50);
      }
    }
    return this;
  }

  /** Stops OPA; its policies are gone, as in any OPA restart. */
  public synchronized void stop() {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  public URI url() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The one bearer token this OPA's API admits. */
  public String token() {
    return token;
  }

  /**
   * A token OPA admits for every call, for tests only: it plants what the hub's token may not (a
   * module under an id the hub does not manage), standing for what an operator loads into OPA.
   */
  public String operatorToken() {
    return operatorToken;
  }

  /**
   * A client with {@link #token()}, speaking h2c, or HTTP/1.1 to an OPA without {@code --h2c}; the
   * caller closes it.
   */
  public OpaClient client() {
    return clientWith(token);
  }

  /**
   * A client with {@link #operatorToken()}: it reads what the hub's token may not (a data document
   * such as the freeze windows, to check what the hub pushed); the caller closes it.
   */
  public OpaClient operatorClient() {
    return clientWith(operatorToken);
  }

  private OpaClient clientWith(String bearer) {
    return new OpaClient(
        url(),
        OpaClient.DEFAULT_CONNECT_TIMEOUT,
        OpaClient.DEFAULT_REQUEST_TIMEOUT,
        bearer,
        h2c ? OpaClient.Transport.H2C : OpaClient.Transport.HTTP1);
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  public int port() {
    return port;
  }

  @Override
  public void close() {
    stop();
  }

  /**
   * The OPA binary: {@code $GITOPSHQ_OPA_BIN}, else {@code tools/bin-path.sh opa} of this
   * repository; fails with what to do when there is none.
   */
  public static Path binary() {
    String env = System.getenv("GITOPSHQ_OPA_BIN");
    if (env != null && !env.isBlank()) {
      Path p = Path.of(env);
      if (!Files.isExecutable(p)) {
        throw new IllegalStateException("GITOPSHQ_OPA_BIN=" + env + " is not an executable file");
      }
      return p;
    }
    Path script = repoRoot().resolve("tools/bin-path.sh");
    try {
      Process p = new ProcessBuilder(script.toString(), "opa").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.waitFor() != 0 || out.isEmpty()) {
        throw new IllegalStateException(
            "no OPA binary for the tests: set GITOPSHQ_OPA_BIN, or build it with"
                + " 'tools/build-tools.sh opa' (tools/bin-path.sh said: "
                + out
                + ")");
      }
      return Path.of(out);
    } catch (IOException e) {
      throw new IllegalStateException(
          "no OPA binary for the tests: set GITOPSHQ_OPA_BIN (could not run " + script + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while looking for the OPA binary", e);
    }
  }

  /**
   * The repository root: the nearest directory above the working directory with policies/gitopshq.
   */
  public static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve("policies/gitopshq"))
          && Files.isDirectory(d.resolve("tools"))) {
        return d;
      }
    }
    throw new IllegalStateException(
        "cannot find the repository root (a directory with policies/gitopshq and tools/) above "
            + dir);
  }

  private String readLog() {
    try {
      return Files.readString(logFile);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for OPA", e);
    }
  }
}

package dev.gitopshq.hub.sso;

import dev.gitopshq.hub.HubTestSupport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The development OpenID Connect provider ({@code idp/}, Spring Authorization Server) as a child
 * JVM on a free port: a real provider, with real login forms, keys and tokens. Its jar is built by
 * the reactor before the hub's integration tests ({@code idp} is ordered before {@code api}).
 */
final class DevIdp implements AutoCloseable {
  private static final Duration STARTUP = Duration.ofSeconds(120);
  private final Process process;
  private final int port;
  private final Path log;

  private DevIdp(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** Starts a provider; {@code args} are {@code --idp.*} settings (users, clients). */
  static DevIdp start(int port, List<String> args) {
    Path jar = Path.of("..", "idp", "target", "gitopshq-dev-idp.jar").toAbsolutePath().normalize();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " is missing: build the reactor with the idp module (e.g. -pl idp,api -am)");
    }
    try {
      Path log = Files.createTempFile("gitopshq-dev-idp", ".log");
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(List.of("-Xmx160m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString()));
      cmd.add("--server.port=" + port);
      cmd.add("--server.address=127.0.0.1");
      cmd.add("--idp.issuer=http://127.0.0.1:" + port);
      cmd.addAll(args);
      Process p =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      return new DevIdp(p, port, log);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the development OIDC provider", e);
    }
  }

  static int freePort() {
    try {
      return HubTestSupport.freePort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  String issuer() {
    return "http://127.0.0.1:" + port;
  }

  /** Waits until the discovery document answers. */
  DevIdp awaitReady() {
    HttpClient http = HttpClient.newHttpClient();
    Instant deadline = Instant.now().plus(STARTUP);
    try {
      while (Instant.now().isBefore(deadline)) {
        if (!process.isAlive()) {
          throw new IllegalStateException("the OIDC provider exited:\n" + Files.readString(log));
        }
        try {
          HttpResponse<Void> r =
              http.send(
                  HttpRequest.newBuilder(URI.create(issuer() + "/.well-known/openid-configuration"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.discarding());
          // Ready only when this process reports the port as its own: another process answering
          // on it (a port chosen twice) would otherwise pass for this provider.
          if (r.statusCode() == 200 && ownsPort()) {
            return this;
          }
        } catch (IOException notYet) {
          // still starting
        }
        Thread.sleep(300);
      }
      throw new IllegalStateException(
          "the OIDC provider did not answer within " + STARTUP + ":\n" + Files.readString(log));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private boolean ownsPort() throws IOException {
    return Files.readString(log).contains("Tomcat started on port " + port + " ");
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}

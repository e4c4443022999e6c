package dev.gitopshq.cli;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.hub.HubTestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real {@code cli/bin/gitopshq} launcher and the shaded jar, as separate processes. */
class LauncherIT {
  static final Path LAUNCHER = Path.of("bin", "gitopshq").toAbsolutePath();
  static HubTestSupport hub;
  static String url;

  @TempDir static Path home;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
    url = "http://127.0.0.1:" + hub.context().getEnvironment().getProperty("local.server.port");
  }

  record Proc(int code, String out, String err) {}

  static Proc run(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of(LAUNCHER.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(home.toFile());
    pb.environment().put("HOME", home.toString());
    pb.environment().remove("XDG_CONFIG_HOME");
    pb.environment().remove("GITOPSHQ_SERVER");
    pb.environment().remove("GITOPSHQ_TOKEN");
    // The JDK that runs this test (>= 21); the launcher must accept it through JAVA_HOME.
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().putAll(env);
    Path out = Files.createTempFile(home, "out", ".txt");
    Path err = Files.createTempFile(home, "err", ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process p = pb.start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("gitopshq " + cmd).isTrue();
    return new Proc(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void printsItsVersionFromAnyDirectory() throws Exception {
    Proc p = run(Map.of(), "--version");
    assertThat(p.code()).as(p.err()).isZero();
    assertThat(p.out()).startsWith("gitopshq 0.");
  }

  @Test
  void listsClustersAsJsonWithTheTokenFromTheEnvironment() throws Exception {
    String name = "launch-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    assertThat(hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)).status())
        .isEqualTo(201);
    Proc p =
        run(
            Map.of("GITOPSHQ_SERVER", url, "GITOPSHQ_TOKEN", OWNER_TOKEN),
            "clusters",
            "list",
            "-o",
            "json");
    assertThat(p.code()).as(p.err()).isZero();
    JsonNode list = new ObjectMapper().readTree(p.out());
    assertThat(list.get("items").findValuesAsText("name")).contains(name);
    assertThat(p.err()).isEmpty();
  }

  @Test
  void reportsHubErrorsWithTheirExitCode() throws Exception {
    Proc p =
        run(
            Map.of("GITOPSHQ_SERVER", url, "GITOPSHQ_TOKEN", "ghqp_" + "0".repeat(64)),
            "clusters",
            "list");
    assertThat(p.code()).isEqualTo(ExitCode.FORBIDDEN);
    assertThat(p.err()).startsWith("error: ");
  }

  @Test
  void refusesAJavaOlderThan21() throws Exception {
    Path fakeJdk = home.resolve("old-jdk");
    Files.createDirectories(fakeJdk.resolve("bin"));
    Path java = fakeJdk.resolve("bin").resolve("java");
    Files.writeString(java, "#!/bin/sh\necho '    java.specification.version = 17' >&2\n");
    assertThat(java.toFile().setExecutable(true)).isTrue();
    Proc p =
        run(
            Map.of(
                "JAVA_HOME", fakeJdk.toString(),
                "PATH", fakeJdk.resolve("bin") + ":/usr/bin:/bin",
                "GITOPSHQ_JVM_DIR", home.resolve("no-jvms").toString()),
            "--version");
    assertThat(p.code()).isEqualTo(1);
    assertThat(p.err()).contains("needs Java 21 or newer");
  }
}

package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line itself: usage, help, exit codes, configuration; no hub needed. */
class CliTest {
  @TempDir Path tmp;

  @Test
  void helpListsTheCommandsAndDocumentsTheExitCodes() {
    Run.Result r = new Run().run("--help");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("clusters", "commands", "approvals", "policies", "audit", "completion")
        .contains("Exit codes: 0 ok, 1 error, 2 usage, 3 not found");
  }

  @Test
  void anUnknownOptionIsAUsageError() {
    Run.Result r = new Run().run("clusters", "list", "--colour");
    assertThat(r.code()).isEqualTo(ExitCode.USAGE);
    assertThat(r.err()).contains("Unknown option: '--colour'");
  }

  @Test
  void withoutAServerTheUserIsToldToLogIn() {
    Run.Result r = new Run().env("XDG_CONFIG_HOME", tmp.toString()).run("clusters", "list");
    assertThat(r.code()).isEqualTo(ExitCode.USAGE);
    assertThat(r.err()).contains("gitopshq login");
  }

  @Test
  void withoutATokenTheExitCodeIsForbidden() {
    Run.Result r =
        new Run()
            .env("XDG_CONFIG_HOME", tmp.toString())
            .run("--server", "http://127.0.0.1:1", "clusters", "list");
    assertThat(r.code()).isEqualTo(ExitCode.FORBIDDEN);
    assertThat(r.err()).contains("no token");
  }

  @Test
  void anUnreachableHubIsExitCodeSeven() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Run.Result r =
        new Run()
            .env("XDG_CONFIG_HOME", tmp.toString())
            .env("GITOPSHQ_SERVER", "http://127.0.0.1:" + port)
            .env("GITOPSHQ_TOKEN", "ghqp_x")
            .run("clusters", "list");
    assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.UNREACHABLE);
    assertThat(r.err()).contains("cannot reach the hub at http://127.0.0.1:" + port);
  }

  @Test
  void theTokenNeverAppearsInAnErrorMessage() throws IOException {
    Run.Result r =
        new Run()
            .env("XDG_CONFIG_HOME", tmp.toString())
            .run("--server", "http://127.0.0.1:1", "--token", "ghqp_secret123", "clusters", "list");
    assertThat(r.out() + r.err()).doesNotContain("ghqp_secret123");
  }

  @Test
  void httpStatusesMapToTheDocumentedExitCodes() {
    assertThat(HubClient.exitCodeFor(400)).isEqualTo(ExitCode.ERROR);
    assertThat(HubClient.exitCodeFor(401)).isEqualTo(ExitCode.FORBIDDEN);
    assertThat(HubClient.exitCodeFor(403)).isEqualTo(ExitCode.FORBIDDEN);
    assertThat(HubClient.exitCodeFor(404)).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(HubClient.exitCodeFor(409)).isEqualTo(ExitCode.CONFLICT);
    assertThat(HubClient.exitCodeFor(422)).isEqualTo(ExitCode.CONFLICT);
    assertThat(HubClient.exitCodeFor(503)).isEqualTo(ExitCode.UNREACHABLE);
  }

  @Test
  void theHubsErrorMessageAndFieldsAreShown() throws Exception {
    CliException e =
        HubClient.error(
            400,
            new ObjectMapper()
                .readTree(
                    "{\"status\":400,\"error\":\"invalid_request\",\"message\":\"name: too long\","
                        + "\"errors\":[{\"field\":\"name\",\"reason\":\"too long\"},"
                        + "{\"field\":\"labels.x\",\"reason\":\"bad key\"}]}"));
    assertThat(e.getMessage()).isEqualTo("name: too long\n  labels.x: bad key");
    assertThat(e.exitCode()).isEqualTo(ExitCode.ERROR);
  }

  @Test
  void pathArgumentsAreEncoded() {
    assertThat(HubClient.expand(Endpoint.POLICIES_VERSION, "a/b c", 3))
        .isEqualTo("/api/v2/policies/a%2Fb%20c/versions/3");
  }

  @Test
  void theConfigFileIsReadableByItsOwnerOnly() throws IOException {
    Path file = tmp.resolve("cfg").resolve("gitopshq").resolve("config.yaml");
    ConfigFile.write(file, new ConfigFile.Settings("https://hub.example.com", "ghqp_abc", null));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
        .isEqualTo("rwx------");
    assertThat(ConfigFile.read(file))
        .isEqualTo(new ConfigFile.Settings("https://hub.example.com", "ghqp_abc", null));
    assertThat(ConfigFile.path(java.util.Map.of("XDG_CONFIG_HOME", tmp.resolve("cfg").toString())))
        .isEqualTo(file);
    assertThat(ConfigFile.path(java.util.Map.of("HOME", "/home/ada")))
        .isEqualTo(Path.of("/home/ada/.config/gitopshq/config.yaml"));
  }

  @Test
  void commandParametersAreTyped() {
    assertThat(CommandsCommand.typed("3")).isEqualTo(3);
    assertThat(CommandsCommand.typed("true")).isEqualTo(true);
    assertThat(CommandsCommand.typed("v1.2")).isEqualTo("v1.2");
  }

  @Test
  void rollbackScopesAreParsed() {
    assertThat(RollbackCommand.scope(null)).isEqualTo("all");
    assertThat(RollbackCommand.scope(java.util.List.of("environment=staging,tenant=acme")))
        .isEqualTo(java.util.List.of(java.util.Map.of("environment", "staging", "tenant", "acme")));
  }

  @Test
  void setEnvironmentChangesTheDeliveryModeAndKeepsWhatIsNotGiven() throws Exception {
    JsonNode current =
        new ObjectMapper()
            .readTree(
                "{\"name\":\"production\",\"namespacePattern\":\"{{ .tenant }}-prod\","
                    + "\"createNamespace\":true,\"clusters\":[{\"cluster\":\"eu-1\",\"overrides\":{\"storageClass\":\"gp3\"},"
                    + "\"deliveryMode\":\"argocd\"},{\"cluster\":\"us-1\",\"overrides\":{},"
                    + "\"deliveryMode\":\"flux\"}]}");
    // --delivery-mode direct alone: every cluster goes direct, overrides, pattern and
    // createNamespace stay.
    assertThat(ProjectsCommand.environmentBody(current, null, null, "direct", null))
        .isEqualTo(
            java.util.Map.of(
                "namespacePattern",
                "{{ .tenant }}-prod",
                "deliveryMode",
                "direct",
                "createNamespace",
                true,
                "clusters",
                java.util.List.of(
                    java.util.Map.of(
                        "cluster", "eu-1",
                        "overrides", java.util.Map.of("storageClass", "gp3"),
                        "deliveryMode", "direct"),
                    java.util.Map.of(
                        "cluster",
                        "us-1",
                        "overrides",
                        java.util.Map.of(),
                        "deliveryMode",
                        "direct"))));
    // One cluster's own mode; a new cluster without one takes the hub's default.
    var body =
        ProjectsCommand.environmentBody(
            current, java.util.List.of("eu-1:direct", "ap-1"), "{{ .tenant }}", null, false);
    assertThat(body.get("clusters"))
        .isEqualTo(
            java.util.List.of(
                java.util.Map.of(
                    "cluster", "eu-1",
                    "overrides", java.util.Map.of("storageClass", "gp3"),
                    "deliveryMode", "direct"),
                java.util.Map.of("cluster", "ap-1", "overrides", java.util.Map.of())));
    assertThat(body)
        .containsEntry("namespacePattern", "{{ .tenant }}")
        .containsEntry("createNamespace", false)
        .doesNotContainKey("deliveryMode");
    // A new environment does not create its namespaces unless asked.
    assertThat(ProjectsCommand.environmentBody(null, java.util.List.of("eu-1"), null, null, null))
        .containsEntry("createNamespace", false);
  }

  @Test
  void anUnknownDeliveryModeIsAUsageErrorBeforeAnythingIsSent() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                ProjectsCommand.environmentBody(
                    null, java.util.List.of("eu-1:helm"), null, null, null))
        .isInstanceOfSatisfying(
            CliException.class,
            e -> {
              assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "--cluster eu-1:helm: the delivery mode must be one of argocd, flux, direct");
            });
  }

  @Test
  void completionPrintsABashScriptForEveryCommand() {
    Run.Result r = new Run().run("completion");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("complete -F", "gitopshq", "clusters", "freeze-windows");
  }

  @Test
  void versionIsTheBuildsVersion() {
    Run.Result r = new Run().run("--version");
    assertThat(r.code()).isZero();
    assertThat(r.out()).matches("gitopshq \\d+\\.\\d+\\.\\d+.*\\n");
  }
}

package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gitopshq commands}: its types, options and checks come from command_types.proto, and a
 * request the hub would refuse is refused before any call (these runs have no hub at all).
 */
class CommandsCommandTest {
  @TempDir Path tmp;

  Run.Result run(String... args) {
    return new Run().env("XDG_CONFIG_HOME", tmp.toString()).run(args);
  }

  @Test
  void typesListsEachRequestableTypeWithItsTargetCapabilityAndParams() {
    Run.Result r = run("commands", "types");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .startsWith("TYPE")
        .contains("scale", "Deployment", "kubernetes.scale", "replicas=0..1000 (required)")
        .contains("revision=TEXT | historyId=0.. (one of them)")
        .contains("refresh", "restart")
        .doesNotContain("resolve-drift");
    Run.Result json = run("-o", "json", "commands", "types");
    assertThat(json.out())
        .contains("\"name\" : \"sync\"", "\"targetKinds\" : [ \"Application\" ]")
        .contains("\"max\" : 1000");
  }

  @Test
  void createsHelpNamesTheTypes() {
    String usage =
        Main.commandLine(
                new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()),
                Map.of(),
                InputStream.nullInputStream())
            .getSubcommands()
            .get("commands")
            .getSubcommands()
            .get("create")
            .getUsageMessage();
    assertThat(usage.replaceAll("\\s+", " "))
        .contains("One of: sync, rollback, restart, scale, refresh");
  }

  @Test
  void anUnknownTypeIsAUsageErrorNamingTheTypes() {
    Run.Result r =
        run("commands", "create", "prod-eu", "--type", "deploy", "-n", "shop", "--name", "web");
    assertThat(r.code()).isEqualTo(ExitCode.USAGE);
    assertThat(r.err()).contains("--type must be one of sync, rollback, restart, scale, refresh");
    Run.Result drift =
        run(
            "commands",
            "create",
            "prod-eu",
            "--type",
            "resolve-drift",
            "-n",
            "shop",
            "--name",
            "web");
    assertThat(drift.code()).isEqualTo(ExitCode.USAGE);
    assertThat(drift.err()).contains("resolve-drift is requested for a drift finding");
  }

  @Test
  void paramsAreCheckedAgainstTheTypeBeforeTheHubIsCalled() {
    Run.Result tooMany =
        run(
            "commands",
            "create",
            "prod-eu",
            "--type",
            "scale",
            "-n",
            "shop",
            "--name",
            "web",
            "-p",
            "replicas=1001");
    assertThat(tooMany.code()).isEqualTo(ExitCode.USAGE);
    assertThat(tooMany.err()).contains("params.replicas: must be a whole number from 0 to 1000");

    Run.Result both =
        run(
            "commands",
            "create",
            "prod-eu",
            "--type",
            "rollback",
            "-n",
            "argocd",
            "--name",
            "app",
            "-p",
            "revision=abc",
            "-p",
            "historyId=3",
            "-p",
            "force=true");
    assertThat(both.code()).isEqualTo(ExitCode.USAGE);
    assertThat(both.err())
        .contains("params: give exactly one of revision or historyId for rollback")
        .contains("params.force: is not a parameter of this command type");
  }

  @Test
  void theKindDefaultsToTheTypesAndAnotherKindIsRefused() {
    Run.Result wrong =
        run(
            "commands",
            "create",
            "prod-eu",
            "--type",
            "sync",
            "--kind",
            "Deployment",
            "-n",
            "argocd",
            "--name",
            "app");
    assertThat(wrong.code()).isEqualTo(ExitCode.USAGE);
    assertThat(wrong.err()).contains("--kind must be Application for a sync command");
    // A valid request gets as far as needing a hub.
    Run.Result valid =
        run("commands", "create", "prod-eu", "--type", "restart", "-n", "shop", "--name", "web");
    assertThat(valid.code()).isEqualTo(ExitCode.USAGE);
    assertThat(valid.err()).contains("gitopshq login");
  }
}

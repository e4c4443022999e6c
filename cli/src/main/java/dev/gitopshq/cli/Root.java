package dev.gitopshq.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code gitopshq}: the global options (server, token, CA, output format) and what every subcommand
 * needs from them (the hub client, the output, the streams).
 */
@Command(
    name = "gitopshq",
    mixinStandardHelpOptions = true,
    versionProvider = Root.Version.class,
    description =
        "The GitOpsHQ command line: clusters, commands, approvals, policies, delivery"
            + " and audit on a GitOpsHQ hub.",
    footer = {
      "",
      "Server and token: --server/--token, else GITOPSHQ_SERVER/GITOPSHQ_TOKEN, else the file"
          + " 'gitopshq login' wrote (gitopshq/config.yaml under XDG_CONFIG_HOME, default ~/.config).",
      ExitCode.HELP
    },
    subcommands = {
      LoginCommand.class,
      WhoamiCommand.class,
      ClustersCommand.class,
      CommandsCommand.class,
      ApprovalsCommand.class,
      PoliciesCommand.class,
      ApprovalPoliciesCommand.class,
      TeamsCommand.class,
      GrantsCommand.class,
      ProjectsCommand.class,
      ReleasesCommand.class,
      PromoteCommand.class,
      RollbackCommand.class,
      FreezeWindowsCommand.class,
      AuditCommand.class,
      EvidenceCommand.class,
      CredentialsCommand.class,
      CompletionCommand.class,
      DriftCommand.class,
      OrgsCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Root implements Runnable {
  final Map<String, String> env;
  final PrintWriter out;
  final PrintWriter err;
  final InputStream stdin;

  @Spec CommandSpec spec;

  @Option(
      names = "--server",
      scope = ScopeType.INHERIT,
      description = "The hub's URL, e.g. https://hub.example.com (env GITOPSHQ_SERVER).")
  String server;

  @Option(
      names = "--token",
      scope = ScopeType.INHERIT,
      description =
          "An API token (env GITOPSHQ_TOKEN). Prefer the environment or 'login':"
              + " a flag is visible to other users of the machine.")
  String token;

  @Option(
      names = "--ca-file",
      scope = ScopeType.INHERIT,
      description = "A PEM file with the CA certificate(s) to trust for the hub's TLS.")
  Path caFile;

  @Option(
      names = {"-o", "--output"},
      scope = ScopeType.INHERIT,
      defaultValue = "table",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Output.Format output = Output.Format.table;

  Root(Map<String, String> env, PrintWriter out, PrintWriter err, InputStream stdin) {
    this.env = env;
    this.out = out;
    this.err = err;
    this.stdin = stdin;
  }

  @Override
  public void run() {
    spec.commandLine().usage(out);
  }

  /** The root of the command a subcommand belongs to. */
  static Root of(CommandSpec spec) {
    return (Root) spec.root().userObject();
  }

  Path configPath() {
    return ConfigFile.path(env);
  }

  /** The effective server: flag, environment, config file. */
  String effectiveServer() {
    ConfigFile.Settings saved = ConfigFile.read(configPath());
    return firstNonBlank(server, env.get("GITOPSHQ_SERVER"), saved.server());
  }

  /** A client for the effective server and token; exit code 4 when there is no token. */
  HubClient client() {
    ConfigFile.Settings saved = ConfigFile.read(configPath());
    String s = firstNonBlank(server, env.get("GITOPSHQ_SERVER"), saved.server());
    if (s == null) {
      throw new CliException(
          ExitCode.USAGE,
          "no hub: pass --server URL, set GITOPSHQ_SERVER, or run 'gitopshq login' first");
    }
    String t = firstNonBlank(token, env.get("GITOPSHQ_TOKEN"), saved.token());
    if (t == null) {
      throw new CliException(
          ExitCode.FORBIDDEN,
          "no token: pass --token, set GITOPSHQ_TOKEN, or run 'gitopshq login' first");
    }
    Path ca = caFile != null ? caFile : saved.caFile() == null ? null : Path.of(saved.caFile());
    return new HubClient(s, t, ca);
  }

  Output output() {
    return new Output(output, out);
  }

  static String firstNonBlank(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v.strip();
      }
    }
    return null;
  }

  /** The version the build stamped into the jar. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"gitopshq " + version()};
    }

    static String version() {
      Properties p = new Properties();
      try (InputStream in = Root.class.getResourceAsStream("/gitopshq-cli-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        return "unknown";
      }
      return p.getProperty("version", "unknown");
    }
  }
}

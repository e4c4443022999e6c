package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "promote",
    description = "Promote a release to the next environment (or --environment).")
final class PromoteCommand extends Base implements Runnable {
  @Parameters(paramLabel = "PROJECT", index = "0")
  String project;

  @Parameters(paramLabel = "RELEASE", index = "1", description = "The release number.")
  int number;

  @Option(names = "--environment")
  String environment;

  @Option(names = "--break-glass", paramLabel = "JUSTIFICATION")
  String breakGlass;

  @Override
  public void run() {
    HubClient hub = client();
    Map<String, Object> body = new LinkedHashMap<>();
    ClustersCommand.putIf(body, "environment", environment);
    ReleasesCommand.breakGlass(body, breakGlass);
    String id = projectId(hub, project);
    JsonNode d;
    try {
      d = hub.call(Endpoint.RELEASES_PROMOTE, Map.of(), body, Map.of(), id, number);
    } catch (CliException e) {
      throw degradedHint(e, project, number);
    }
    output()
        .object(
            d,
            List.of(
                Output.Column.of("Deployment", "id"),
                Output.Column.of("Action", "action"),
                Output.Column.of("Environments", "environments"),
                Output.Column.of("Status", "status"),
                Output.Column.of("Workflow", "workflowId")));
  }

  /**
   * The hub's 409 for a release that is only degraded in the environment it would be promoted from
   * (written, but a cluster did not run it), with the command line that promotes it anyway.
   */
  static CliException degradedHint(CliException e, String project, int number) {
    if (e.exitCode() != ExitCode.CONFLICT
        || e.getMessage() == null
        || !e.getMessage().contains(" is degraded in ")) {
      return e;
    }
    return new CliException(
        e.exitCode(),
        e.getMessage()
            + "\n  (to promote it anyway: gitopshq promote "
            + project
            + " "
            + number
            + " --break-glass JUSTIFICATION)",
        e.body());
  }
}

package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "rollback",
    description = {
      "Restore an earlier release's configuration, for all of the project or a scope.",
      "Example: gitopshq rollback shop --to 3 --scope environment=staging,tenant=acme"
    })
final class RollbackCommand extends Base implements Runnable {
  @Parameters(paramLabel = "PROJECT")
  String project;

  @Option(names = "--to", required = true, paramLabel = "RELEASE", description = "Release number.")
  int toRelease;

  @Option(
      names = "--scope",
      paramLabel = "all|environment=E,tenant=T,service=S",
      description = "What to restore (repeatable; default all).")
  List<String> scope;

  @Option(names = "--description")
  String description;

  @Option(names = "--break-glass", paramLabel = "JUSTIFICATION")
  String breakGlass;

  @Override
  public void run() {
    HubClient hub = client();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("toRelease", toRelease);
    body.put("scope", scope(scope));
    ClustersCommand.putIf(body, "description", description);
    ReleasesCommand.breakGlass(body, breakGlass);
    JsonNode r =
        hub.call(Endpoint.ROLLBACKS_CREATE, Map.of(), body, Map.of(), projectId(hub, project));
    output().object(r, ReleasesCommand.DEPLOYMENT);
  }

  /** {@code all}, or a list of {@code {environment?, tenant?, service?}} entries. */
  static Object scope(List<String> args) {
    if (args == null || args.isEmpty() || (args.size() == 1 && args.get(0).equals("all"))) {
      return "all";
    }
    List<Map<String, String>> entries = new ArrayList<>();
    for (String a : args) {
      Map<String, String> e = new LinkedHashMap<>();
      for (String kv : a.split(",")) {
        int eq = kv.indexOf('=');
        String k = eq < 0 ? "" : kv.substring(0, eq).strip();
        if (!List.of("environment", "tenant", "service").contains(k)) {
          throw new CliException(
              ExitCode.USAGE,
              "--scope " + a + ": use environment=E, tenant=T and/or service=S (or all)");
        }
        e.put(k, kv.substring(eq + 1).strip());
      }
      entries.add(e);
    }
    return entries;
  }
}

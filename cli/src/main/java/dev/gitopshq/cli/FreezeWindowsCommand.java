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
    name = "freeze-windows",
    aliases = "freeze",
    description =
        "Freeze windows: times when deployments, and the commands a window names, need"
            + " break-glass.")
final class FreezeWindowsCommand extends Base {
  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Id", "id"),
          new Output.Column("Environment", n -> n.path("environment").asText("(all)")),
          new Output.Column("Project", n -> n.path("project").asText("(all)")),
          Output.Column.of("Starts", "startsAt"),
          Output.Column.of("Ends", "endsAt"),
          Output.Column.of("Active", "active"),
          new Output.Column(
              "Commands",
              n -> {
                List<String> types = new ArrayList<>();
                n.path("commandTypes").forEach(t -> types.add(t.asText()));
                return types.isEmpty() ? "-" : String.join(",", types);
              }),
          Output.Column.of("Reason", "reason"));

  @Command(name = "list", aliases = "ls", description = "The windows, by start time.")
  void list(
      @Option(names = "--active", arity = "1", description = "true: covering now; false: others")
          Boolean active) {
    Map<String, List<String>> q = new LinkedHashMap<>();
    CommandsCommand.query(q, "active", active);
    JsonNode list = client().call(Endpoint.FREEZE_WINDOWS_LIST, q, null, Map.of());
    output().print(list, items(list), LIST);
  }

  @Command(name = "create", description = "Freeze an environment, a project, or everything.")
  void create(
      @Option(names = "--environment", description = "Omit to freeze every environment.")
          String environment,
      @Option(names = "--project", description = "Omit to freeze every project.") String project,
      @Option(names = "--starts", required = true, description = "RFC 3339 with an offset")
          String startsAt,
      @Option(names = "--ends", required = true) String endsAt,
      @Option(names = "--reason", required = true) String reason,
      @Option(
              names = "--command-types",
              split = ",",
              paramLabel = "TYPE",
              description =
                  "Also hold these command types (comma-separated, e.g. scale,restart; 'all' for"
                      + " every type) on the clusters of the environment. Only with no --project.")
          List<String> commandTypes) {
    Map<String, Object> body = new LinkedHashMap<>();
    ClustersCommand.putIf(body, "environment", environment);
    ClustersCommand.putIf(body, "project", project);
    body.put("startsAt", startsAt);
    body.put("endsAt", endsAt);
    body.put("reason", reason);
    if (commandTypes != null && !commandTypes.isEmpty()) {
      body.put("commandTypes", commandTypes);
    }
    JsonNode w = client().call(Endpoint.FREEZE_WINDOWS_CREATE, Map.of(), body, Map.of());
    output().print(w, List.of(w), LIST);
  }

  @Command(name = "delete", description = "Delete a window.")
  void delete(@Parameters(paramLabel = "ID") String id) {
    client().call(Endpoint.FREEZE_WINDOWS_DELETE, id);
    output().line("Deleted freeze window " + id + ".");
  }
}

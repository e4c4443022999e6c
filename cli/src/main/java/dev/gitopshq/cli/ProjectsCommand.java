package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "projects", aliases = "project", description = "Delivery projects.")
final class ProjectsCommand extends Base {
  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Name", "name"),
          Output.Column.of("Config rev", "configRevision"),
          Output.Column.of("Generated rev", "generatedRevision"),
          Output.Column.of("Description", "description"),
          Output.Column.of("Id", "id"));

  static final List<Output.Column> DETAIL =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Name", "name"),
          Output.Column.of("Description", "description"),
          Output.Column.of("Config revision", "configRevision"),
          Output.Column.of("Generated revision", "generatedRevision"),
          Output.Column.of("Clone URL", "/repository/cloneUrl"),
          Output.Column.of("Created", "createdAt"),
          Output.Column.of("Updated", "updatedAt"));

  @Command(name = "list", aliases = "ls", description = "The organization's projects.")
  void list() {
    JsonNode list = client().call(Endpoint.PROJECTS_LIST);
    output().print(list, items(list), LIST);
  }

  @Command(name = "get", description = "One project (by name or id).")
  void get(@Parameters(paramLabel = "PROJECT") String project) {
    HubClient hub = client();
    output().object(hub.call(Endpoint.PROJECTS_GET, projectId(hub, project)), DETAIL);
  }
}

package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gitopshq grants}: a team's role on a project, on every project, or on the clusters a label
 * selector matches (docs/policies.md#teams-and-grants).
 */
@Command(
    name = "grants",
    aliases = "grant",
    description = "Grants: a team's role on a project, every project, or clusters by selector.")
final class GrantsCommand extends Base {
  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Team", "team"),
          Output.Column.of("Role", "role"),
          Output.Column.of("Scope", "scope"),
          new Output.Column(
              "On",
              n ->
                  switch (n.path("scope").asText()) {
                    case "project" -> n.path("projectId").asText();
                    case "projects" -> "(every project)";
                    default -> ApprovalPoliciesCommand.selector(n.path("selector"));
                  }));

  @Command(name = "list", aliases = "ls", description = "The grants, by team.")
  void list(
      @Option(names = "--team", paramLabel = "TEAM", description = "Only this team's") String team,
      @Option(names = "--project", paramLabel = "PROJECT", description = "Only on this project")
          String project) {
    HubClient hub = client();
    Map<String, List<String>> q = new LinkedHashMap<>();
    if (team != null) {
      q.put("teamId", List.of(teamId(hub, team)));
    }
    if (project != null) {
      q.put("projectId", List.of(projectId(hub, project)));
    }
    JsonNode list = hub.call(Endpoint.GRANTS_LIST, q, null, Map.of());
    output().print(list, items(list), LIST);
  }

  static final class Scope {
    @Option(names = "--project", paramLabel = "PROJECT", description = "One project (name or id)")
    String project;

    @Option(names = "--all-projects", description = "Every project, present and future")
    boolean allProjects;

    @Option(
        names = "--clusters",
        paramLabel = "SELECTOR",
        description =
            "Clusters by label selector, kubectl syntax ('tier=dev,region in (eu)'); '*' = all")
    String clusters;
  }

  @Command(name = "create", description = "Give a team a role somewhere.")
  void create(
      @Option(names = "--team", required = true, paramLabel = "TEAM") String team,
      @Option(
              names = "--role",
              required = true,
              paramLabel = "ROLE",
              description = "viewer, member or admin")
          String role,
      @ArgGroup(exclusive = true, multiplicity = "1") Scope scope) {
    HubClient hub = client();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("teamId", teamId(hub, team));
    body.put("role", role);
    if (scope.project != null) {
      body.put("scope", "project");
      body.put("projectId", projectId(hub, scope.project));
    } else if (scope.allProjects) {
      body.put("scope", "projects");
    } else {
      body.put("scope", "clusters");
      Map<String, Object> selector = ApprovalPoliciesCommand.parseSelector(scope.clusters);
      body.put("selector", selector == null ? Map.of() : selector);
    }
    JsonNode g = hub.call(Endpoint.GRANTS_CREATE, Map.of(), body, Map.of());
    output().print(g, List.of(g), LIST);
  }

  @Command(name = "delete", description = "Revoke a grant.")
  void delete(@Parameters(paramLabel = "ID") String id) {
    client().call(Endpoint.GRANTS_DELETE, id);
    output().line("Deleted grant " + id + ".");
  }
}

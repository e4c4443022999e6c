package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gitopshq teams}: the organization's teams and their members
 * (docs/policies.md#teams-and-grants). Teams get access through {@code gitopshq grants}.
 */
@Command(
    name = "teams",
    aliases = "team",
    description =
        "Teams: members belong to them, and grants give them a role on projects/clusters.")
final class TeamsCommand extends Base {
  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Name", "name"),
          Output.Column.of("Members", "memberCount"),
          Output.Column.of("Description", "description"));

  static final List<Output.Column> MEMBERS =
      List.of(
          Output.Column.of("Member", "memberId"),
          Output.Column.of("Email", "email"),
          Output.Column.of("Source", "source"));

  @Command(name = "list", aliases = "ls", description = "The teams, by name.")
  void list() {
    JsonNode list = client().call(Endpoint.TEAMS_LIST);
    output().print(list, items(list), LIST);
  }

  @Command(name = "get", description = "One team's members (its grants: gitopshq grants list).")
  void get(@Parameters(paramLabel = "TEAM", description = "Name or id") String team) {
    HubClient hub = client();
    JsonNode t = hub.call(Endpoint.TEAMS_GET, teamId(hub, team));
    List<JsonNode> rows = new ArrayList<>();
    t.path("members").forEach(rows::add);
    output().print(t, rows, MEMBERS);
  }

  @Command(name = "create", description = "Create a team.")
  void create(
      @Parameters(paramLabel = "NAME") String name,
      @Option(names = "--description", paramLabel = "TEXT") String description) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", name);
    ClustersCommand.putIf(body, "description", description);
    JsonNode t = client().call(Endpoint.TEAMS_CREATE, Map.of(), body, Map.of());
    output().print(t, List.of(t), LIST);
  }

  @Command(name = "delete", description = "Delete a team with its memberships and grants.")
  void delete(@Parameters(paramLabel = "TEAM") String team) {
    HubClient hub = client();
    client().call(Endpoint.TEAMS_DELETE, teamId(hub, team));
    output().line("Deleted team " + team + ".");
  }

  @Command(name = "add-member", description = "Put a member in the team (by hand).")
  void addMember(
      @Parameters(index = "0", paramLabel = "TEAM") String team,
      @Parameters(index = "1", paramLabel = "MEMBER", description = "Email or id") String member) {
    HubClient hub = client();
    String id = teamId(hub, team);
    hub.call(
        Endpoint.TEAMS_ADD_MEMBER,
        Map.of(),
        Map.of("memberId", memberId(hub, member)),
        Map.of(),
        id);
    output().line("Added " + member + " to team " + team + ".");
  }

  @Command(
      name = "remove-member",
      description = "Take a member's manual membership away (SSO ones follow the provider).")
  void removeMember(
      @Parameters(index = "0", paramLabel = "TEAM") String team,
      @Parameters(index = "1", paramLabel = "MEMBER", description = "Email or id") String member) {
    HubClient hub = client();
    hub.call(Endpoint.TEAMS_REMOVE_MEMBER, teamId(hub, team), memberId(hub, member));
    output().line("Removed " + member + " from team " + team + ".");
  }

  /** A member's id from their id or email. */
  static String memberId(HubClient hub, String idOrEmail) {
    if (!idOrEmail.contains("@")) {
      return idOrEmail;
    }
    for (JsonNode m : hub.call(Endpoint.MEMBERS_LIST).path("items")) {
      if (idOrEmail.equalsIgnoreCase(m.path("email").asText())) {
        return m.path("id").asText();
      }
    }
    throw new CliException(ExitCode.NOT_FOUND, "no member with email " + idOrEmail);
  }
}

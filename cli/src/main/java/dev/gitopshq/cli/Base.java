package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** What every command group shares: the root's options, the client, the output, name lookup. */
abstract class Base {
  private static final Pattern UUID =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  @Spec CommandSpec spec;

  Root root() {
    return Root.of(spec);
  }

  HubClient client() {
    return root().client();
  }

  Output output() {
    return root().output();
  }

  static List<JsonNode> items(JsonNode list) {
    List<JsonNode> rows = new ArrayList<>();
    list.path("items").forEach(rows::add);
    return rows;
  }

  /** A cluster's id from its id or its name (exit code 3 when there is none). */
  String clusterId(HubClient hub, String idOrName) {
    return resolve(hub, idOrName, Endpoint.CLUSTERS_LIST, "cluster");
  }

  /** A project's id from its id or its name. */
  String projectId(HubClient hub, String idOrName) {
    return resolve(hub, idOrName, Endpoint.PROJECTS_LIST, "project");
  }

  /** A team's id from its id or its name. */
  String teamId(HubClient hub, String idOrName) {
    return resolve(hub, idOrName, Endpoint.TEAMS_LIST, "team");
  }

  private static String resolve(HubClient hub, String idOrName, Endpoint list, String what) {
    if (UUID.matcher(idOrName).matches()) {
      return idOrName;
    }
    for (JsonNode n : hub.call(list).path("items")) {
      if (idOrName.equals(n.path("name").asText())) {
        return n.path("id").asText();
      }
    }
    throw new CliException(ExitCode.NOT_FOUND, "no " + what + " named " + idOrName);
  }
}

package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "orgs",
    aliases = "org",
    description =
        "The instance's organizations and their plans (the operator organization's owners only).")
final class OrgsCommand extends Base {
  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Slug", "slug"),
          Output.Column.of("Name", "name"),
          Output.Column.of("Plan", "plan"),
          Output.Column.of("Operator", "operator"),
          Output.Column.of("Members", "members"),
          Output.Column.of("Clusters", "clusters"),
          Output.Column.of("Id", "id"));

  static final List<Output.Column> DETAIL = LIST;

  @Command(name = "list", aliases = "ls", description = "Every organization of the instance.")
  void list() {
    JsonNode list = client().call(Endpoint.ORGS_LIST);
    output().print(list, items(list), LIST);
  }

  @Command(
      name = "set-plan",
      description = {
        "Put an organization on another plan: free, pro or enterprise. Its feature gates follow at"
            + " once; nothing already configured is removed. Audited as org.plan_changed."
      })
  void setPlan(
      @Parameters(index = "0", paramLabel = "ORG", description = "The organization's slug or id.")
          String org,
      @Parameters(index = "1", paramLabel = "PLAN", description = "free, pro or enterprise")
          String plan) {
    HubClient hub = client();
    String id = orgId(hub, org);
    output()
        .object(
            hub.call(Endpoint.ORGS_SET_PLAN, Map.of(), Map.of("plan", plan), Map.of(), id), DETAIL);
  }

  /** The id of the organization with this slug (or this id). */
  static String orgId(HubClient hub, String slugOrId) {
    for (JsonNode o : items(hub.call(Endpoint.ORGS_LIST))) {
      if (o.path("slug").asText().equals(slugOrId) || o.path("id").asText().equals(slugOrId)) {
        return o.path("id").asText();
      }
    }
    throw new CliException(ExitCode.NOT_FOUND, "no organization '" + slugOrId + "'");
  }
}

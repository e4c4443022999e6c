package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "releases", aliases = "release", description = "A project's releases.")
final class ReleasesCommand extends Base {
  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Number", "number"),
          Output.Column.of("Kind", "kind"),
          Output.Column.of("Config rev", "configRevision"),
          Output.Column.of("Description", "description"),
          Output.Column.of("Requester", "/requester/name"),
          Output.Column.of("Created", "createdAt"));

  static final List<Output.Column> ENVIRONMENTS =
      List.of(
          Output.Column.of("Environment", "environment"),
          Output.Column.of("Status", "status"),
          Output.Column.of("Action", "action"),
          Output.Column.of("Commit", "commit"),
          Output.Column.of("At", "at"));

  static final List<Output.Column> DEPLOYMENT =
      List.of(
          Output.Column.of("Release", "/release/number"),
          Output.Column.of("Deployment", "/deployment/id"),
          Output.Column.of("Action", "/deployment/action"),
          Output.Column.of("Environments", "/deployment/environments"),
          Output.Column.of("Status", "/deployment/status"),
          Output.Column.of("Workflow", "/deployment/workflowId"));

  @Command(name = "list", aliases = "ls", description = "A project's releases, newest first.")
  void list(
      @Parameters(paramLabel = "PROJECT") String project,
      @Option(names = "--limit", description = "1-200 (default 50)") Integer limit) {
    HubClient hub = client();
    Map<String, List<String>> q = new LinkedHashMap<>();
    CommandsCommand.query(q, "limit", limit);
    JsonNode list = hub.call(Endpoint.RELEASES_LIST, q, null, Map.of(), projectId(hub, project));
    output().print(list, items(list), LIST);
  }

  @Command(name = "get", description = "A release and where it stands per environment.")
  void get(
      @Parameters(paramLabel = "PROJECT", index = "0") String project,
      @Parameters(paramLabel = "NUMBER", index = "1") int number) {
    HubClient hub = client();
    JsonNode r = hub.call(Endpoint.RELEASES_GET, projectId(hub, project), number);
    Output out = output();
    out.object(
        r,
        List.of(
            Output.Column.of("Number", "number"),
            Output.Column.of("Kind", "kind"),
            Output.Column.of("Description", "description"),
            Output.Column.of("Config revision", "configRevision"),
            Output.Column.of("Source commit", "sourceCommit"),
            Output.Column.of("Rollback of", "rollbackOf"),
            Output.Column.of("Requester", "/requester/name"),
            Output.Column.of("Created", "createdAt")));
    if (out.isTable()) {
      out.line("");
      out.line(Output.table(r.path("environments"), ENVIRONMENTS).stripTrailing());
    }
  }

  @Command(
      name = "deployment",
      description =
          "A deployment: its status, the policy's decision, what it changes on the deploy"
              + " branches and, in a verified environment, what each Flux or Argo CD cluster ran"
              + " of it.")
  void deployment(
      @Parameters(paramLabel = "PROJECT", index = "0") String project,
      @Parameters(paramLabel = "DEPLOYMENT", index = "1") String deployment) {
    HubClient hub = client();
    JsonNode d = hub.call(Endpoint.DEPLOYMENTS_GET, projectId(hub, project), deployment);
    Output out = output();
    out.object(
        d,
        List.of(
            Output.Column.of("Deployment", "id"),
            Output.Column.of("Release", "/release/number"),
            Output.Column.of("Action", "action"),
            Output.Column.of("Environments", "environments"),
            Output.Column.of("Status", "status"),
            Output.Column.of("Detail", "detail"),
            Output.Column.of("Requester", "/requester/name"),
            new Output.Column(
                "Decision",
                n ->
                    n.path("decision").isObject()
                        ? Output.text(n.at("/decision/outcome"))
                            + " (policy "
                            + Output.text(n.at("/decision/policy"))
                            + " v"
                            + Output.text(n.at("/decision/version"))
                            + ")"
                        : ""),
            new Output.Column("Changes", n -> changeSummary(n.path("changes"))),
            Output.Column.of("Commits", "commits")));
    if ("degraded".equals(d.path("status").asText())) {
      out.line(
          "degraded: the commits are written, but a cluster did not run them in time; promoting"
              + " from here needs --break-glass");
    }
    if (out.isTable() && !d.path("clusters").isEmpty()) {
      out.line("");
      out.line(Output.table(d.path("clusters"), CLUSTERS).stripTrailing());
    }
  }

  /** What each Flux or Argo CD cluster ran of a deployment, when the hub last looked. */
  static final List<Output.Column> CLUSTERS =
      List.of(
          Output.Column.of("Environment", "environment"),
          Output.Column.of("Cluster", "cluster"),
          Output.Column.of("Mode", "mode"),
          new Output.Column("Verified", n -> n.path("verified").asBoolean() ? "yes" : "no"),
          new Output.Column("Revision", n -> shortSha(n.path("revision").asText(""))),
          new Output.Column(
              "Health",
              n ->
                  String.join(
                      " — ",
                      Stream.of(Output.text(n.path("health")), Output.text(n.path("reason")))
                          .filter(t -> !t.isEmpty())
                          .toList())),
          Output.Column.of("Verified at", "verifiedAt"));

  private static String shortSha(String sha) {
    return sha.length() > 12 ? sha.substring(0, 12) : sha;
  }

  /**
   * e.g. {@code 3 added, 1 changed, 0 removed; RBAC: 1; cluster-scoped: 1; images: 2}; empty before
   * the decision counted them.
   */
  static String changeSummary(JsonNode c) {
    if (!c.isObject()) {
      return "";
    }
    StringBuilder s =
        new StringBuilder()
            .append(c.path("added").asLong())
            .append(" added, ")
            .append(c.path("changed").asLong())
            .append(" changed, ")
            .append(c.path("removed").asLong())
            .append(" removed; RBAC: ")
            .append(c.path("rbac").asLong())
            .append("; cluster-scoped: ")
            .append(c.path("clusterScoped").asLong())
            .append("; images: ")
            .append(c.path("images").asLong());
    if (c.path("unreadable").asLong() > 0) {
      s.append("; unreadable files: ").append(c.path("unreadable").asLong());
    }
    return s.toString();
  }

  @Command(name = "create", description = "Release the project's current configuration.")
  void create(
      @Parameters(paramLabel = "PROJECT") String project,
      @Option(names = "--description") String description,
      @Option(names = "--environment", description = "Where to deploy first.") String environment,
      @Option(names = "--break-glass", paramLabel = "JUSTIFICATION") String breakGlass) {
    HubClient hub = client();
    Map<String, Object> body = new LinkedHashMap<>();
    ClustersCommand.putIf(body, "description", description);
    ClustersCommand.putIf(body, "environment", environment);
    breakGlass(body, breakGlass);
    JsonNode r =
        hub.call(Endpoint.RELEASES_CREATE, Map.of(), body, Map.of(), projectId(hub, project));
    output().object(r, DEPLOYMENT);
  }

  static void breakGlass(Map<String, Object> body, String justification) {
    if (justification != null) {
      body.put("breakGlass", true);
      body.put("justification", justification);
    }
  }
}

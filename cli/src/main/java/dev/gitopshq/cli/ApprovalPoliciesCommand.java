package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gitopshq approval-policy}: the organization's reusable approval policies and their
 * attachments to clusters (docs/policies.md#approval-policy-objects).
 */
@Command(
    name = "approval-policy",
    aliases = "approval-policies",
    description =
        "Approval policies: who approves which commands, attached to clusters by name or by"
            + " label selector.")
final class ApprovalPoliciesCommand extends Base {
  private static final ObjectMapper JSON = new ObjectMapper();

  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Name", "name"),
          new Output.Column("Require approval", n -> join(n.path("requireApproval"))),
          new Output.Column("Auto-approve", n -> join(n.path("autoApprove"))),
          Output.Column.of("Approvals", "requiredApprovers"),
          new Output.Column(
              "Approvers",
              n -> {
                String roles = join(n.path("approverRoles"));
                String teams = join(n.path("approverTeams"));
                return teams.isEmpty() ? roles : roles + " team:" + teams;
              }),
          new Output.Column(
              "Break-glass",
              n ->
                  n.path("breakGlass").path("allowed").asBoolean()
                      ? join(n.path("breakGlass").path("roles"))
                      : "no"),
          new Output.Column("Clusters", n -> join(n.path("clusters"))),
          new Output.Column("Selector", n -> selector(n.path("selector"))),
          new Output.Column(
              "Governs",
              n -> {
                List<String> out = new ArrayList<>();
                n.path("governs").forEach(g -> out.add(g.path("cluster").asText()));
                return String.join(",", out);
              }));

  /** The options create and update share; on update only those given change. */
  static final class Rules {
    @Option(
        names = "--require-approval",
        split = ",",
        paramLabel = "TYPE",
        description = "Command types that wait for approvers (comma-separated).")
    List<String> requireApproval;

    @Option(
        names = "--auto-approve",
        split = ",",
        paramLabel = "TYPE",
        description = "Command types that run at once.")
    List<String> autoApprove;

    @Option(names = "--approvals", paramLabel = "N", description = "Approvals needed (1-10).")
    Integer requiredApprovers;

    @Option(
        names = "--approver-role",
        split = ",",
        paramLabel = "ROLE",
        description = "Roles that may approve (default admin,owner).")
    List<String> approverRoles;

    @Option(
        names = "--approver-team",
        split = ",",
        paramLabel = "TEAM",
        description = "Teams whose members may approve.")
    List<String> approverTeams;

    @Option(
        names = "--break-glass",
        arity = "1",
        paramLabel = "true|false",
        description = "Whether break-glass is allowed.")
    Boolean breakGlass;

    @Option(
        names = "--break-glass-role",
        split = ",",
        paramLabel = "ROLE",
        description = "Roles that may use break-glass (default admin,owner).")
    List<String> breakGlassRoles;

    @Option(
        names = "--cluster",
        split = ",",
        paramLabel = "NAME",
        description = "Attach to clusters by name (replaces the list; --cluster '' clears it).")
    List<String> clusters;

    @Option(
        names = "--selector",
        paramLabel = "SELECTOR",
        description =
            "Attach by label selector, kubectl syntax: 'tier=production,region in (eu,us),!canary'."
                + " '' removes the selector; '*' matches every cluster.")
    String selector;

    @Option(names = "--description", paramLabel = "TEXT")
    String description;

    /** The body: {@code base} (the current policy, or empty) with the options given applied. */
    Map<String, Object> body(String name, JsonNode base) {
      Map<String, Object> b = new LinkedHashMap<>();
      b.put("name", name);
      b.put("description", description != null ? description : base.path("description").asText(""));
      b.put("requireApproval", or(requireApproval, base.path("requireApproval")));
      b.put("autoApprove", or(autoApprove, base.path("autoApprove")));
      b.put(
          "requiredApprovers",
          requiredApprovers != null ? requiredApprovers : base.path("requiredApprovers").asInt(1));
      b.put("approverRoles", or(approverRoles, base.path("approverRoles")));
      b.put("approverTeams", or(approverTeams, base.path("approverTeams")));
      b.put(
          "breakGlass",
          Map.of(
              "allowed",
              breakGlass != null ? breakGlass : base.path("breakGlass").path("allowed").asBoolean(),
              "roles",
              or(breakGlassRoles, base.path("breakGlass").path("roles"))));
      b.put("clusters", or(clusters, base.path("clusters")));
      if (selector != null) {
        ClustersCommand.putIf(b, "selector", parseSelector(selector));
      } else if (base.has("selector") && !base.get("selector").isNull()) {
        b.put("selector", JSON.convertValue(base.get("selector"), Map.class));
      }
      return b;
    }
  }

  @Command(name = "list", aliases = "ls", description = "The policies, by name.")
  void list() {
    JsonNode list = client().call(Endpoint.APPROVAL_POLICIES_LIST);
    output().print(list, items(list), LIST);
  }

  @Command(name = "get", description = "One policy, with the clusters it governs now.")
  void get(@Parameters(paramLabel = "NAME") String name) {
    JsonNode p = client().call(Endpoint.APPROVAL_POLICIES_GET, name);
    output().print(p, List.of(p), LIST);
  }

  @Command(name = "create", description = "Create a policy; attach it with --cluster/--selector.")
  void create(@Parameters(paramLabel = "NAME") String name, @Mixin Rules rules) {
    JsonNode p =
        client()
            .call(
                Endpoint.APPROVAL_POLICIES_CREATE,
                Map.of(),
                rules.body(name, JSON.createObjectNode()),
                Map.of());
    output().print(p, List.of(p), LIST);
  }

  @Command(name = "update", description = "Change a policy: only the options given change.")
  void update(@Parameters(paramLabel = "NAME") String name, @Mixin Rules rules) {
    HubClient hub = client();
    JsonNode current = hub.call(Endpoint.APPROVAL_POLICIES_GET, name);
    JsonNode p =
        hub.call(
            Endpoint.APPROVAL_POLICIES_UPDATE, Map.of(), rules.body(name, current), Map.of(), name);
    output().print(p, List.of(p), LIST);
  }

  @Command(name = "delete", description = "Delete a policy; its clusters fall to the next match.")
  void delete(@Parameters(paramLabel = "NAME") String name) {
    client().call(Endpoint.APPROVAL_POLICIES_DELETE, name);
    output().line("Deleted approval policy " + name + ".");
  }

  private static List<String> or(List<String> given, JsonNode current) {
    if (given != null) {
      return given.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
    List<String> out = new ArrayList<>();
    current.forEach(n -> out.add(n.asText()));
    return out;
  }

  static String join(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return String.join(",", out);
  }

  /** A stored selector in kubectl syntax; {@code *} for the empty one (every cluster). */
  static String selector(JsonNode s) {
    return SelectorSyntax.format(s, "*");
  }

  /**
   * kubectl's selector syntax ({@link SelectorSyntax}) as the API's {@code {matchLabels,
   * matchExpressions}}; {@code *} is the empty selector (every cluster); an empty string is no
   * selector (null).
   */
  static Map<String, Object> parseSelector(String text) {
    String t = text.strip();
    if (t.isEmpty()) {
      return null;
    }
    return t.equals("*") ? Map.of() : SelectorSyntax.parse(t);
  }
}

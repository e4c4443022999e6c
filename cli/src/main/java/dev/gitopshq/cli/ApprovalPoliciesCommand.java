package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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

  /** A stored selector in kubectl syntax, as the hub describes it. */
  static String selector(JsonNode s) {
    if (s.isMissingNode() || s.isNull()) {
      return "";
    }
    List<String> parts = new ArrayList<>();
    s.path("matchLabels")
        .fields()
        .forEachRemaining(e -> parts.add(e.getKey() + "=" + e.getValue().asText()));
    for (JsonNode e : s.path("matchExpressions")) {
      String key = e.path("key").asText();
      String values = join(e.path("values"));
      parts.add(
          switch (e.path("operator").asText()) {
            case "Exists" -> key;
            case "DoesNotExist" -> "!" + key;
            case "NotIn" -> key + " notin (" + values + ")";
            default -> key + " in (" + values + ")";
          });
    }
    return parts.isEmpty() ? "*" : String.join(",", parts);
  }

  /**
   * kubectl's selector syntax as the API's {@code {matchLabels, matchExpressions}}: {@code k=v} (or
   * {@code k==v}), {@code k!=v}, {@code k in (a,b)}, {@code k notin (a,b)}, {@code k}, {@code !k};
   * {@code *} is the empty selector (every cluster); an empty string is no selector (null).
   */
  static Map<String, Object> parseSelector(String text) {
    String t = text.trim();
    if (t.isEmpty()) {
      return null;
    }
    Map<String, String> labels = new LinkedHashMap<>();
    List<Map<String, Object>> exprs = new ArrayList<>();
    if (t.equals("*")) {
      return Map.of("matchLabels", labels, "matchExpressions", exprs);
    }
    for (String part : splitTopLevel(t)) {
      String p = part.trim();
      String lower = p.toLowerCase(Locale.ROOT);
      int in = lower.indexOf(" notin ");
      String op = "NotIn";
      if (in < 0) {
        in = lower.indexOf(" in ");
        op = "In";
      }
      if (in >= 0) {
        String key = p.substring(0, in).trim();
        String rest = p.substring(in + (op.equals("In") ? 4 : 7)).trim();
        if (!rest.startsWith("(") || !rest.endsWith(")")) {
          throw new CliException(ExitCode.USAGE, "selector: expected (values) after " + key);
        }
        List<String> values =
            List.of(rest.substring(1, rest.length() - 1).split(",")).stream()
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
        exprs.add(expr(key, op, values));
      } else if (p.contains("!=")) {
        String[] kv = p.split("!=", 2);
        exprs.add(expr(kv[0].trim(), "NotIn", List.of(kv[1].trim())));
      } else if (p.contains("=")) {
        String[] kv = p.split("==?", 2);
        labels.put(kv[0].trim(), kv[1].trim());
      } else if (p.startsWith("!")) {
        exprs.add(expr(p.substring(1).trim(), "DoesNotExist", List.of()));
      } else if (!p.isEmpty()) {
        exprs.add(expr(p, "Exists", List.of()));
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("matchLabels", labels);
    out.put("matchExpressions", exprs);
    return out;
  }

  private static Map<String, Object> expr(String key, String op, List<String> values) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("key", key);
    e.put("operator", op);
    e.put("values", values);
    return e;
  }

  /** Splits on commas outside parentheses. */
  private static List<String> splitTopLevel(String s) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(s.substring(start, i));
        start = i + 1;
      }
    }
    out.add(s.substring(start));
    return out;
  }
}

package dev.gitopshq.hub.approvalpolicy;

import dev.gitopshq.activities.approvalpolicy.ClusterSelector;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.hub.web.Checks;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/** Request bodies of the approval-policy endpoints and their validation (400 naming the field). */
public final class ApprovalPolicyRequests {
  private ApprovalPolicyRequests() {}

  static final int MAX_CLUSTERS = 256;
  static final int MAX_SELECTOR_LABELS = 32;
  static final int MAX_EXPRESSIONS = 32;
  static final int MAX_VALUES = 64;
  static final int MAX_DESCRIPTION = 1000;

  public record BreakGlass(Boolean allowed, List<String> roles) {}

  public record SelectorExpression(String key, String operator, List<String> values) {}

  public record SelectorBody(
      Map<String, String> matchLabels, List<SelectorExpression> matchExpressions) {}

  /** {@code POST} and {@code PUT /api/v2/approval-policies[/{name}]}. */
  public record ApprovalPolicyBody(
      String name,
      String description,
      List<String> requireApproval,
      List<String> autoApprove,
      Integer requiredApprovers,
      List<String> approverRoles,
      List<String> approverTeams,
      BreakGlass breakGlass,
      List<String> clusters,
      SelectorBody selector) {}

  /** A policy's rules, validated and normalized (sorted, distinct, defaults filled). */
  public record Rules(
      List<String> requireApproval,
      List<String> autoApprove,
      int requiredApprovers,
      List<String> approverRoles,
      List<String> approverTeams,
      boolean breakGlassAllowed,
      List<String> breakGlassRoles) {

    /** What the audit log records of the rules. */
    Map<String, Object> details() {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("requireApproval", requireApproval);
      d.put("autoApprove", autoApprove);
      d.put("requiredApprovers", requiredApprovers);
      d.put("approverRoles", approverRoles);
      d.put("approverTeams", approverTeams);
      d.put("breakGlassAllowed", breakGlassAllowed);
      d.put("breakGlassRoles", breakGlassRoles);
      return d;
    }
  }

  /** The rules of a body (the same for a policy object and a cluster's own settings). */
  public static Rules rules(
      Checks c,
      List<String> requireApproval,
      List<String> autoApprove,
      Integer requiredApprovers,
      List<String> approverRoles,
      List<String> approverTeams,
      BreakGlass breakGlass) {
    List<String> require = types(c, "requireApproval", requireApproval);
    List<String> auto = types(c, "autoApprove", autoApprove);
    Set<String> both = new HashSet<>(require);
    both.retainAll(auto);
    if (!both.isEmpty()) {
      c.fail("autoApprove", "cannot also require approval for " + both);
    }
    int required = requiredApprovers == null ? 1 : requiredApprovers;
    if (required < 1 || required > 10) {
      c.fail("requiredApprovers", "must be between 1 and 10");
    }
    List<String> roles = roles(c, "approverRoles", approverRoles, List.of("admin", "owner"));
    List<String> teams = approverTeams == null ? List.of() : approverTeams;
    if (teams.size() > 64) {
      c.fail("approverTeams", "must have at most 64 teams");
      teams = List.of();
    }
    for (int i = 0; i < teams.size(); i++) {
      c.dnsLabel("approverTeams[" + i + "]", teams.get(i));
    }
    boolean bgAllowed = breakGlass != null && Boolean.TRUE.equals(breakGlass.allowed());
    List<String> bgRoles =
        roles(
            c,
            "breakGlass.roles",
            breakGlass == null ? null : breakGlass.roles(),
            List.of("admin", "owner"));
    return new Rules(
        require,
        auto,
        required,
        roles,
        teams.stream().filter(Objects::nonNull).distinct().sorted().toList(),
        bgAllowed,
        bgRoles);
  }

  static Rules rules(Checks c, ApprovalPolicyBody b) {
    return rules(
        c,
        b.requireApproval(),
        b.autoApprove(),
        b.requiredApprovers(),
        b.approverRoles(),
        b.approverTeams(),
        b.breakGlass());
  }

  /** Cluster names a policy is attached to: DNS labels, distinct, sorted. */
  static List<String> clusters(Checks c, List<String> clusters) {
    if (clusters == null) {
      return List.of();
    }
    if (clusters.size() > MAX_CLUSTERS) {
      c.fail("clusters", "must name at most " + MAX_CLUSTERS + " clusters");
      return List.of();
    }
    for (int i = 0; i < clusters.size(); i++) {
      c.dnsLabel("clusters[" + i + "]", clusters.get(i));
    }
    return clusters.stream().filter(Objects::nonNull).distinct().sorted().toList();
  }

  /** A label selector with Kubernetes' rules for its parts; null when the body has none. */
  static ClusterSelector selector(Checks c, SelectorBody s) {
    if (s == null) {
      return null;
    }
    Map<String, String> labels = s.matchLabels() == null ? Map.of() : s.matchLabels();
    if (labels.size() > MAX_SELECTOR_LABELS) {
      c.fail("selector.matchLabels", "must have at most " + MAX_SELECTOR_LABELS + " labels");
    } else {
      c.labels("selector.matchLabels", labels);
    }
    List<SelectorExpression> exprs =
        s.matchExpressions() == null ? List.of() : s.matchExpressions();
    if (exprs.size() > MAX_EXPRESSIONS) {
      c.fail("selector.matchExpressions", "must have at most " + MAX_EXPRESSIONS + " expressions");
      exprs = List.of();
    }
    List<ClusterSelector.SelectorRequirement> out = new ArrayList<>();
    for (int i = 0; i < exprs.size(); i++) {
      String f = "selector.matchExpressions[" + i + "]";
      SelectorExpression e = exprs.get(i);
      if (e == null) {
        c.fail(f, "must be an object {key, operator, values}");
        continue;
      }
      if (e.key() == null || !labelPart(e.key())) {
        c.fail(
            f + ".key",
            "must be a label key: 1-63 letters, digits, '-', '_' or '.', starting and ending with"
                + " a letter or digit");
      }
      List<String> values = e.values() == null ? List.of() : e.values();
      if (e.operator() == null || !ClusterSelector.OPERATORS.contains(e.operator())) {
        c.fail(f + ".operator", "must be one of In, NotIn, Exists, DoesNotExist");
      } else if (Set.of("In", "NotIn").contains(e.operator()) && values.isEmpty()) {
        c.fail(f + ".values", "must not be empty for " + e.operator());
      } else if (Set.of("Exists", "DoesNotExist").contains(e.operator()) && !values.isEmpty()) {
        c.fail(f + ".values", "must be empty for " + e.operator());
      }
      if (values.size() > MAX_VALUES) {
        c.fail(f + ".values", "must have at most " + MAX_VALUES + " values");
        values = List.of();
      }
      for (int j = 0; j < values.size(); j++) {
        String v = values.get(j);
        if (v == null || !(v.isEmpty() || labelPart(v))) {
          c.fail(
              f + ".values[" + j + "]",
              "must be a label value: at most 63 letters, digits, '-', '_' or '.', starting and"
                  + " ending with a letter or digit");
        }
      }
      out.add(
          new ClusterSelector.SelectorRequirement(
              e.key(),
              e.operator(),
              values.stream().filter(Objects::nonNull).distinct().sorted().toList()));
    }
    return new ClusterSelector(labels, out);
  }

  private static final Pattern LABEL_PART =
      Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

  private static boolean labelPart(String s) {
    return s.length() <= 63 && LABEL_PART.matcher(s).matches();
  }

  private static List<String> types(Checks c, String field, List<String> values) {
    List<String> v = values == null ? List.of() : values;
    for (int i = 0; i < v.size(); i++) {
      // A null element ([null]) is invalid too; Set.contains(null) would throw (a 500 found by
      // the API fuzzing).
      if (v.get(i) == null || !CommandTypes.ALL.contains(v.get(i))) {
        c.fail(field + "[" + i + "]", "must be one of " + String.join(", ", CommandTypes.ALL));
      }
    }
    return v.stream().filter(Objects::nonNull).distinct().sorted().toList();
  }

  private static List<String> roles(
      Checks c, String field, List<String> values, List<String> fallback) {
    if (values == null || values.isEmpty()) {
      return fallback;
    }
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null || Role.parse(values.get(i)).isEmpty()) {
        c.fail(field + "[" + i + "]", "must be one of owner, admin, member, viewer");
      }
    }
    return values.stream().filter(Objects::nonNull).distinct().sorted().toList();
  }
}

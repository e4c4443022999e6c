package dev.gitopshq.hub.approvalpolicy;

import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.hub.web.Checks;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Request bodies of the approval-policy endpoints and their validation (400 naming the field). */
public final class ApprovalPolicyRequests {
  private ApprovalPolicyRequests() {}

  static final int MAX_CLUSTERS = 256;
  static final int MAX_DESCRIPTION = 1000;

  public record BreakGlass(Boolean allowed, List<String> roles) {}

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
      LabelSelector selector) {}

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

package dev.gitopshq.hub.command;

import dev.gitopshq.activities.command.ApprovalSettingsRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/clusters/{id}/approval-policy}: the approval settings bound to a cluster (seed:
 * command approvals, required approvers, break-glass, auto-approve). OPA reads them as {@code
 * input.settings}; with none bound, the policy's defaults apply.
 */
@RestController
public class ApprovalPolicyController {
  private final ApprovalSettingsService settings;
  private final Clock clock;

  public ApprovalPolicyController(ApprovalSettingsService settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
  }

  record BreakGlass(Boolean allowed, List<String> roles) {}

  record Body(
      List<String> requireApproval,
      List<String> autoApprove,
      Integer requiredApprovers,
      List<String> approverRoles,
      List<String> approverTeams,
      BreakGlass breakGlass) {}

  record View(
      boolean bound,
      List<String> requireApproval,
      List<String> autoApprove,
      Integer requiredApprovers,
      List<String> approverRoles,
      List<String> approverTeams,
      BreakGlass breakGlass,
      String updatedBy,
      Instant updatedAt) {
    static View of(ApprovalSettingsRow s) {
      return new View(
          true,
          s.requireApproval(),
          s.autoApprove(),
          s.requiredApprovers(),
          s.approverRoles(),
          s.approverTeams(),
          new BreakGlass(s.breakGlassAllowed(), s.breakGlassRoles()),
          s.updatedBy(),
          s.updatedAt());
    }
  }

  @GetMapping("/api/v2/clusters/{id}/approval-policy")
  View get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return settings
        .find(caller, id)
        .map(View::of)
        .orElse(new View(false, null, null, null, null, null, null, null, null));
  }

  @PutMapping("/api/v2/clusters/{id}/approval-policy")
  View put(@PathVariable UUID id, @RequestBody Body body) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    settings.find(caller, id); // another organization's cluster is a 404 before the body is judged
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    List<String> require = types(c, "requireApproval", body.requireApproval());
    List<String> auto = types(c, "autoApprove", body.autoApprove());
    Set<String> both = new HashSet<>(require);
    both.retainAll(auto);
    if (!both.isEmpty()) {
      c.fail("autoApprove", "cannot also require approval for " + both);
    }
    int required = body.requiredApprovers() == null ? 1 : body.requiredApprovers();
    if (required < 1 || required > 10) {
      c.fail("requiredApprovers", "must be between 1 and 10");
    }
    List<String> roles = roles(c, "approverRoles", body.approverRoles(), List.of("admin", "owner"));
    List<String> teams = body.approverTeams() == null ? List.of() : body.approverTeams();
    for (int i = 0; i < teams.size(); i++) {
      c.dnsLabel("approverTeams[" + i + "]", teams.get(i));
    }
    boolean bgAllowed =
        body.breakGlass() != null && Boolean.TRUE.equals(body.breakGlass().allowed());
    List<String> bgRoles =
        roles(
            c,
            "breakGlass.roles",
            body.breakGlass() == null ? null : body.breakGlass().roles(),
            List.of("admin", "owner"));
    c.throwIfInvalid();

    ApprovalSettingsRow row =
        new ApprovalSettingsRow(
            caller.orgId(),
            id,
            require,
            auto,
            required,
            roles,
            List.copyOf(teams),
            bgAllowed,
            bgRoles,
            caller.name(),
            clock.instant());
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("requireApproval", require);
    d.put("autoApprove", auto);
    d.put("requiredApprovers", required);
    d.put("approverRoles", roles);
    d.put("approverTeams", teams);
    d.put("breakGlassAllowed", bgAllowed);
    d.put("breakGlassRoles", bgRoles);
    return View.of(settings.save(caller, row, d));
  }

  private static List<String> types(Checks c, String field, List<String> values) {
    List<String> v = values == null ? List.of() : values;
    for (int i = 0; i < v.size(); i++) {
      // A null element ([null]) is invalid too; Set.contains(null) would throw (a 500 found by
      // the API fuzzing).
      if (v.get(i) == null || !CommandTypes.isKnown(v.get(i))) {
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

package dev.gitopshq.hub.member;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.org.OrgService;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import java.util.List;
import java.util.Locale;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Who the caller is: the web UI and the CLI show it and decide which actions to offer (the hub
 * still checks every action itself).
 */
@RestController
public class MeController {

  /**
   * @param type {@code member} or {@code service_account}
   * @param role the member's role; null for a service account
   * @param permissions what this token may do, as scopes
   */
  record Me(
      String id, String type, String name, String role, List<String> permissions, OrgRef org) {}

  /** The caller's organization; {@code operator} when it administers the instance. */
  record OrgRef(String id, String slug, String name, boolean operator) {}

  private final OrgService orgs;

  public MeController(OrgService orgs) {
    this.orgs = orgs;
  }

  @GetMapping("/api/v2/me")
  Me me() {
    HubPrincipal p = Authz.caller();
    return new Me(
        p.id(),
        p.isMember() ? "member" : "service_account",
        p.name(),
        p.role() == null ? null : p.role().name().toLowerCase(Locale.ROOT),
        p.permissions().stream().map(Permission::scope).sorted().toList(),
        orgs.own(p.orgId())
            .map(o -> new OrgRef(o.id().toString(), o.slug(), o.name(), p.operatorOrg()))
            .orElse(null));
  }
}

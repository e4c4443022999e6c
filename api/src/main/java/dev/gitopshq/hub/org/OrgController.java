package dev.gitopshq.hub.org;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.org.OrgSummary;
import dev.gitopshq.hub.features.Plan;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/orgs}: the instance's organizations. Creating one and listing all take {@code
 * orgs:write}, which only the owners of the operator organization hold, as does changing an
 * organization's plan; anyone may read their own.
 */
@RestController
@RequestMapping("/api/v2/orgs")
public class OrgController {
  private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");
  private final OrgService service;

  public OrgController(OrgService service) {
    this.service = service;
  }

  record Owner(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String email,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name) {}

  record CreateOrg(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String slug,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Owner owner) {}

  record OrgView(
      String id,
      String slug,
      String name,
      String plan,
      boolean operator,
      int members,
      int clusters,
      Instant createdAt) {
    static OrgView of(OrgSummary o) {
      return new OrgView(
          o.id().toString(),
          o.slug(),
          o.name(),
          o.plan(),
          o.operator(),
          o.members(),
          o.clusters(),
          o.createdAt());
    }
  }

  record OrgList(List<OrgView> items) {}

  /** The owner's first API token is in {@code ownerToken}, in this response only. */
  record CreatedOrg(OrgView org, String ownerId, String ownerEmail, String ownerToken) {
    @Override
    public String toString() {
      return "CreatedOrg[org=" + org.slug() + "]";
    }
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  CreatedOrg create(@RequestBody CreateOrg body) {
    HubPrincipal caller = Authz.require(Permission.ORGS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    c.dnsLabel("slug", body.slug());
    c.displayName("name", body.name(), 128, true);
    if (body.owner() == null) {
      c.fail("owner", "is required: {\"email\": ..., \"name\": ...}");
    } else {
      String e = body.owner().email();
      if (e == null || e.length() > 254 || !EMAIL.matcher(e).matches()) {
        c.fail("owner.email", "must be an email address");
      }
      c.displayName("owner.name", body.owner().name(), 128, true);
    }
    c.throwIfInvalid();
    OrgService.Created created =
        service.create(
            caller,
            body.slug(),
            body.name(),
            body.owner().email().toLowerCase(Locale.ROOT),
            body.owner().name());
    return new CreatedOrg(
        OrgView.of(created.org()),
        created.owner().id().toString(),
        created.owner().email(),
        created.value());
  }

  @GetMapping
  OrgList list() {
    Authz.require(Permission.ORGS_WRITE);
    return new OrgList(service.list().stream().map(OrgView::of).toList());
  }

  /**
   * The plan to put an organization on; {@code allowableValues} are {@link Plan}'s wire names
   * (OrgControllerTest checks they stay the same).
   */
  record SetPlan(
      @Schema(
              allowableValues = {"free", "pro", "enterprise"},
              requiredMode = Schema.RequiredMode.REQUIRED)
          String plan) {}

  /**
   * Puts an organization on another plan ({@code free}, {@code pro} or {@code enterprise}); only
   * the operator organization's owners ({@code orgs:write}) may.
   */
  @PutMapping("/{id}/plan")
  OrgView setPlan(@PathVariable UUID id, @RequestBody(required = false) SetPlan body) {
    HubPrincipal caller = Authz.require(Permission.ORGS_WRITE);
    String wire = body == null ? null : body.plan();
    Plan plan =
        Arrays.stream(Plan.values())
            .filter(p -> p.wireName().equals(wire))
            .findFirst()
            .orElseThrow(
                () ->
                    ApiException.invalid(
                        "plan",
                        "must be one of "
                            + Arrays.stream(Plan.values()).map(Plan::wireName).toList()));
    return OrgView.of(service.setPlan(caller, id, plan));
  }

  @GetMapping("/{id}")
  OrgView get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.caller();
    return OrgView.of(service.get(caller, id, caller.can(Permission.ORGS_WRITE)));
  }
}

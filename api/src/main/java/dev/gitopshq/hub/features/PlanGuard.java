package dev.gitopshq.hub.features;

import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.org.OrgRow;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * The one place a feature gate is enforced: a controller whose request uses a gated feature calls
 * {@link #require} after its permission check, and the caller's organization's plan decides.
 */
@Component
public class PlanGuard {
  private final OrgMapper orgs;

  public PlanGuard(OrgMapper orgs) {
    this.orgs = orgs;
  }

  /** The organization's plan; an organization this hub cannot find is on the lowest plan. */
  public Plan planOf(UUID orgId) {
    return Plan.of(orgs.findById(orgId).map(OrgRow::plan).orElse(null));
  }

  /**
   * Refuses the request with {@code 403 feature_not_in_plan}, naming the feature and the plan, when
   * the caller's organization's plan does not open {@code feature}.
   */
  public void require(HubPrincipal caller, Feature feature) {
    Plan plan = planOf(caller.orgId());
    if (!plan.includes(feature)) {
      throw ApiException.featureNotInPlan(
          feature.gate(), plan.wireName(), feature.minimum().wireName());
    }
  }
}

package dev.gitopshq.hub.features;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.config.HubProperties;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The caller's organization's plan, its feature gates and limits. Each gate is a {@link Feature};
 * {@link PlanGuard} refuses the requests that use a gate the plan does not open. The community
 * build gives new organizations plan {@code GITOPSHQ_PLAN} ({@code enterprise} unless set), with
 * every gate open; callers should read this endpoint instead of assuming a tier table.
 */
@RestController
public class FeaturesController {
  private final HubProperties props;
  private final PlanGuard plans;

  public FeaturesController(HubProperties props, PlanGuard plans) {
    this.props = props;
    this.plans = plans;
  }

  /**
   * @param plan the organization's plan
   * @param features every gate and whether the plan opens it
   * @param requiredPlans every gate and the lowest plan that opens it, so a client can say why a
   *     closed one is closed
   */
  record Features(
      String plan,
      Map<String, Boolean> features,
      Map<String, String> requiredPlans,
      Map<String, Object> limits) {}

  @GetMapping("/api/v2/features")
  Features features() {
    HubPrincipal caller = Authz.require(Permission.FEATURES_READ);
    Plan plan = plans.planOf(caller.orgId());
    Map<String, Boolean> gates = new LinkedHashMap<>();
    Map<String, String> required = new LinkedHashMap<>();
    for (Feature f : Feature.values()) {
      gates.put(f.gate(), plan.includes(f));
      required.put(f.gate(), f.minimum().wireName());
    }
    Map<String, Object> limits = new LinkedHashMap<>();
    limits.put("clusters", null);
    limits.put("members", null);
    limits.put("registrationTokenTtlSeconds", 3600);
    limits.put("heartbeatIntervalSeconds", props.agent().heartbeatIntervalSeconds());
    limits.put("disconnectTimeoutSeconds", props.agent().disconnectTimeoutSeconds());
    return new Features(plan.wireName(), gates, required, limits);
  }
}

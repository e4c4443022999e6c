package dev.gitopshq.hub.features;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.config.HubProperties;
import dev.gitopshq.hub.security.Authz;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The effective plan, feature gates and limits. The community build reports plan {@code enterprise}
 * with every gate on, as the product documents describe; callers should read this endpoint instead
 * of assuming a tier table.
 */
@RestController
public class FeaturesController {
  /** Plans in ascending order. */
  static final List<String> PLANS = List.of("free", "pro", "enterprise");

  /**
   * The runtime feature gates, by their documented constant names, and the plan that opens each.
   */
  static final Map<String, String> GATES = new LinkedHashMap<>();

  static {
    GATES.put("FeaturePromotion", "pro");
    GATES.put("FeatureRollback", "pro");
    GATES.put("FeatureSelectiveRollback", "enterprise");
    GATES.put("FeatureRollbackApproval", "enterprise");
    GATES.put("FeatureTeams", "pro");
    GATES.put("FeatureResourcePermissions", "pro");
    GATES.put("FeatureNotifications", "pro");
    GATES.put("FeatureAlertEscalation", "enterprise");
    GATES.put("FeatureK8sValidation", "free");
    GATES.put("FeatureCRDSchemas", "enterprise");
    GATES.put("FeatureValuesGovernance", "pro");
  }

  private final HubProperties props;

  public FeaturesController(HubProperties props) {
    this.props = props;
  }

  record Features(String plan, Map<String, Boolean> features, Map<String, Object> limits) {}

  @GetMapping("/api/v2/features")
  Features features() {
    Authz.require(Permission.FEATURES_READ);
    Map<String, Boolean> gates = new LinkedHashMap<>();
    int plan = Math.max(0, PLANS.indexOf(props.plan()));
    GATES.forEach((gate, minimum) -> gates.put(gate, plan >= PLANS.indexOf(minimum)));
    Map<String, Object> limits = new LinkedHashMap<>();
    limits.put("clusters", null);
    limits.put("members", null);
    limits.put("registrationTokenTtlSeconds", 3600);
    limits.put("heartbeatIntervalSeconds", props.agent().heartbeatIntervalSeconds());
    limits.put("disconnectTimeoutSeconds", props.agent().disconnectTimeoutSeconds());
    return new Features(props.plan(), gates, limits);
  }
}

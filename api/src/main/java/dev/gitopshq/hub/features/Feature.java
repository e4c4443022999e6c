package dev.gitopshq.hub.features;

/**
 * The runtime feature gates {@code GET /api/v2/features} reports, by their documented constant
 * names, and the lowest plan that opens each. Every gate here is enforced by {@link PlanGuard} on
 * the requests that use it (FeatureGatesTest checks that each one is); a gate for a feature the
 * product does not have does not belong here.
 */
public enum Feature {
  /** Promoting a release to further environments ({@code POST …/releases/{n}/promote}). */
  PROMOTION("FeaturePromotion", Plan.PRO),
  /** Rolling a project back to an earlier release ({@code POST …/rollbacks}). */
  ROLLBACK("FeatureRollback", Plan.PRO),
  /** A rollback limited to some environments, tenants or services (a {@code scope}). */
  SELECTIVE_ROLLBACK("FeatureSelectiveRollback", Plan.ENTERPRISE),
  /** Approving or rejecting a rollback the release policy holds for approval. */
  ROLLBACK_APPROVAL("FeatureRollbackApproval", Plan.ENTERPRISE),
  /** Putting members in teams ({@code teams} on {@code POST/PATCH /members}). */
  TEAMS("FeatureTeams", Plan.PRO),
  /** The organization's notification webhook ({@code PUT/DELETE /notifications}, its test). */
  NOTIFICATIONS("FeatureNotifications", Plan.PRO),
  /** Publishing the organization's own policy versions ({@code PUT /policies/{name}}). */
  VALUES_GOVERNANCE("FeatureValuesGovernance", Plan.PRO);

  private final String gate;
  private final Plan minimum;

  Feature(String gate, Plan minimum) {
    this.gate = gate;
    this.minimum = minimum;
  }

  /** The gate's name as the API reports it, e.g. {@code FeaturePromotion}. */
  public String gate() {
    return gate;
  }

  /** The lowest plan that opens this gate. */
  public Plan minimum() {
    return minimum;
  }
}

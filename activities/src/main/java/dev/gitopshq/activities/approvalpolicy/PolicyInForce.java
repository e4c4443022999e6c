package dev.gitopshq.activities.approvalpolicy;

import java.util.List;

/**
 * The approval policy that governs a cluster and why.
 *
 * @param policy the policy in force
 * @param attachedBy {@code "name"} (the policy names the cluster) or {@code "selector"}
 * @param selector the matching selector in kubectl syntax when attached by selector, else null
 * @param tiedWith other policies whose selectors match the cluster exactly as specifically; empty
 *     unless a label change made a tie after the policies were saved (saving one is refused). The
 *     policy whose name sorts first wins such a tie, and the cluster page shows a warning.
 */
public record PolicyInForce(
    ApprovalPolicyRow policy, String attachedBy, String selector, List<String> tiedWith) {
  public static final String BY_NAME = "name";
  public static final String BY_SELECTOR = "selector";

  public PolicyInForce {
    tiedWith = List.copyOf(tiedWith);
  }

  /** A sentence for the cluster page: why this policy governs the cluster. */
  public String reason() {
    return BY_NAME.equals(attachedBy)
        ? "approval policy " + policy.name() + " is attached to the cluster by name"
        : "approval policy " + policy.name() + " is attached by selector " + selector;
  }

  /** The warning the cluster page shows for a tie, or null. */
  public String warning() {
    if (tiedWith.isEmpty()) {
      return null;
    }
    return "the selectors of approval policies "
        + policy.name()
        + " and "
        + String.join(", ", tiedWith)
        + " match this cluster equally specifically; "
        + policy.name()
        + " applies because its name sorts first. Attach one by name or make a selector more"
        + " specific.";
  }
}

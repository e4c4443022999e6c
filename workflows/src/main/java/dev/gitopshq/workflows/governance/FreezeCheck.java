package dev.gitopshq.workflows.governance;

import java.util.List;

/**
 * The {@code gitopshq.freeze} decision for a deployment's environments.
 *
 * @param frozen a freeze window covers at least one of the environments now
 * @param blocked frozen and not overridden by break-glass: the deployment must not run
 * @param reasons sentences naming the windows
 */
public record FreezeCheck(
    String policy, int policyVersion, boolean frozen, boolean blocked, List<String> reasons) {
  public FreezeCheck {
    reasons = reasons == null ? List.of() : List.copyOf(reasons);
  }
}

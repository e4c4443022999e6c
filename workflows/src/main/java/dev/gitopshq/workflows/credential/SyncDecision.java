package dev.gitopshq.workflows.credential;

import java.util.List;

/**
 * What the policy decided for one round, by target.
 *
 * @param allowed targets (credential name/namespace) the round may write
 * @param denied targets the policy refused, as {@code name/namespace}
 */
public record SyncDecision(int allowed, List<String> denied) {
  public SyncDecision {
    denied = List.copyOf(denied);
  }
}

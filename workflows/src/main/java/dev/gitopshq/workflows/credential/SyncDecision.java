package dev.gitopshq.workflows.credential;

import java.util.List;

/**
 * What the policy decided for one round, by target.
 *
 * @param allowed targets (credential name/namespace) the round may write
 * @param denied targets the policy refused, as {@code name/namespace}
 * @param credentials the ids of the credentials with at least one allowed target: each is sent as
 *     one {@code credential_sync} job (empty in histories recorded before it existed)
 */
public record SyncDecision(int allowed, List<String> denied, List<String> credentials) {
  public SyncDecision {
    denied = List.copyOf(denied);
    credentials = credentials == null ? List.of() : List.copyOf(credentials);
  }

  public SyncDecision(int allowed, List<String> denied) {
    this(allowed, denied, List.of());
  }
}

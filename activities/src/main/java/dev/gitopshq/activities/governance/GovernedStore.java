package dev.gitopshq.activities.governance;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The rows of a governed subject (a command, a deployment) that the governance activities write:
 * its status and detail, its policy decision and its numbered timeline. Each subject's mapper
 * implements it over the same column names.
 */
public interface GovernedStore {
  /** Adds timeline event {@code seq}; 0 when an earlier attempt already added it. */
  int insertEvent(
      UUID orgId, UUID id, int seq, Instant at, String status, String actor, String detail);

  int updateStatus(
      UUID orgId, UUID id, String status, String detail, boolean terminal, Instant now);

  /** Says why the subject waits (e.g. OPA unreachable) without changing its status. */
  int updateDetail(UUID orgId, UUID id, String detail, Instant now);

  int recordDecision(
      UUID orgId,
      UUID id,
      String policy,
      int version,
      String sha256,
      String outcome,
      List<String> reasons,
      Instant now);
}

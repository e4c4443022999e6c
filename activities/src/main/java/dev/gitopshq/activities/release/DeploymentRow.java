package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One governed move of a release into environments.
 *
 * @param action deploy, promote or rollback
 * @param environmentIds the environments it writes to
 * @param environments their names, in the organization's order
 * @param policy the policy that decided, once it has
 * @param commits environment name to the commit written on its deploy branch
 * @param requestedBy the requester's member or service-account id
 * @param changes the summary of what it changes as JSON ({@link DeploymentChanges#summary}), once
 *     the decision was asked for; null before
 */
public record DeploymentRow(
    UUID id,
    UUID orgId,
    UUID projectId,
    UUID releaseId,
    String action,
    List<String> environmentIds,
    List<String> environments,
    String status,
    String detail,
    String policy,
    Integer policyVersion,
    String policySha256,
    String outcome,
    boolean breakGlass,
    String justification,
    Map<String, String> commits,
    String requestedBy,
    String requesterName,
    Instant createdAt,
    Instant updatedAt,
    Instant finishedAt,
    String changes) {

  /** Final statuses: nothing changes a deployment any more. */
  public static final List<String> FINAL =
      List.of("deployed", "frozen", "rejected", "expired", "cancelled", "failed", "degraded");

  public boolean isFinal() {
    return FINAL.contains(status);
  }
}

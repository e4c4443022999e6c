package dev.gitopshq.workflows.registration;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The store-side steps of registration. Every method is idempotent; the token id is the key. */
@ActivityInterface
public interface RegistrationActivities {

  /**
   * Confirms that the token row the workflow follows was committed. The REST call starts the
   * workflow inside its transaction, so the workflow can get here before the commit: the activity
   * then fails and is retried until the row shows up. If it never does (the transaction rolled
   * back), the retries run out and the workflow ends as abandoned.
   *
   * @param tokenId the idempotency key
   * @throws IllegalStateException while the token row is not visible
   */
  @ActivityMethod
  void confirmIssued(String orgId, String clusterId, String tokenId);

  /**
   * Marks the token expired if it is still unused, atomically, and audits the expiry.
   *
   * @param tokenId the idempotency key
   * @return the token's state after the call: EXPIRED, or REGISTERED / SUPERSEDED if it had already
   *     been consumed or replaced
   */
  @ActivityMethod
  RegistrationState expireToken(String orgId, String clusterId, String tokenId);
}

package dev.gitopshq.workflows.registration;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The store-side steps of registration. Every method is idempotent; the token id is the key. */
@ActivityInterface
public interface RegistrationActivities {

  /**
   * Confirms that the token row the workflow follows was committed. The REST call starts the
   * workflow inside its transaction; if that transaction then rolled back, there is no token and
   * the workflow ends at once.
   *
   * @param tokenId the idempotency key
   * @return true when the token exists
   */
  @ActivityMethod
  boolean confirmIssued(String orgId, String clusterId, String tokenId);

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

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

  /**
   * Binds the newly registered cluster to every project environment whose cluster selector matches
   * it (a selector matches registered clusters only), each project's change as one configuration
   * commit that names the registration as its cause. Idempotent: a cluster already bound is left as
   * it is, and an unchanged configuration makes no commit.
   *
   * @param tokenId the idempotency key (the registration token the cluster registered with)
   */
  @ActivityMethod
  void joinSelectingEnvironments(String orgId, String clusterId, String tokenId);
}

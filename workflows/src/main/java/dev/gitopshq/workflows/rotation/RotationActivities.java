package dev.gitopshq.workflows.rotation;

import io.temporal.activity.ActivityInterface;
import java.util.List;

/** The store side of a rotation. Every method is idempotent; the rotation id is the key. */
@ActivityInterface
public interface RotationActivities {
  /** The replica holding the cluster's agent stream, or null when none does. */
  String streamHolder(String orgId, String clusterId);

  /**
   * Activates the new token and limits every older token of the cluster to the grace period (their
   * expiry is set, so they stop working on time even if this workflow is late).
   */
  void activate(
      String orgId, String clusterId, String rotationId, String newTokenId, long graceSeconds);

  /** Revokes every agent token of the cluster but the new one; returns the revoked ids. */
  List<String> revokeOlder(String orgId, String clusterId, String rotationId, String newTokenId);

  /** The rotation failed: revoke the new token (if any), keep the old, audit and notify. */
  void abandon(String orgId, String clusterId, String rotationId, String newTokenId, String reason);
}

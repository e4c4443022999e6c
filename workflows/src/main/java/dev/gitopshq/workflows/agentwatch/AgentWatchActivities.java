package dev.gitopshq.workflows.agentwatch;

import dev.gitopshq.workflows.governance.Notification;
import io.temporal.activity.ActivityInterface;

/** What the watch needs from the store and the notifier. */
@ActivityInterface
public interface AgentWatchActivities {
  /**
   * True when the agent did not come back: no newer stream than the one that ended, and no
   * heartbeat within the timeout.
   */
  boolean stillDisconnected(
      String orgId, String clusterId, long connectedAtMillis, long timeoutSeconds);

  /** Sends the notification; the event id is the idempotency key. */
  void notifyDisconnected(Notification notification);
}

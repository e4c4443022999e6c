package dev.gitopshq.workflows.command;

import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.FreezeCheck;
import dev.gitopshq.workflows.governance.Notification;
import io.temporal.activity.ActivityInterface;

/** The store, policy and notification steps of a command. */
@ActivityInterface
public interface CommandActivities {
  /**
   * Moves the command to {@code status} and appends a timeline event.
   *
   * @param seq the event's position in the command's timeline: the idempotency key, so a retried
   *     activity appends nothing twice
   */
  void transition(
      String orgId, String commandId, int seq, CommandStatus status, String actor, String detail);

  /**
   * The capability the command type needs that the cluster's agent did not report, or null when it
   * has it.
   */
  String missingCapability(String orgId, String clusterId, String type);

  /**
   * Asks OPA. Throws (and is retried) while OPA is unreachable or answers without a decision:
   * nothing executes without a decision. While it waits it records why on the command.
   */
  Decision decide(CommandSpec spec);

  /**
   * Asks the freeze policy whether a freeze window holds the command now (its type, its cluster's
   * environment), and whether break-glass lets it through; audits {@code command.freeze_decision}
   * when it is frozen. Throws (and is retried) while OPA is unreachable, as {@link #decide} does.
   */
  FreezeCheck checkFreeze(CommandSpec spec);

  /** Sends a signed webhook event; retried until delivered. The event id is the key. */
  void notify(Notification notification);
}

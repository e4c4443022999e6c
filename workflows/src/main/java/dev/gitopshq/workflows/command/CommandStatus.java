package dev.gitopshq.workflows.command;

/** A command's lifecycle, by the names the API shows. */
public enum CommandStatus {
  pending,
  pending_approval,
  executing,
  completed,
  failed,
  rejected,
  expired,
  cancelled,
  /** A freeze window holds the command's type on its cluster, and it was not break-glass. */
  frozen;

  public boolean isFinal() {
    return this != pending && this != pending_approval && this != executing;
  }
}

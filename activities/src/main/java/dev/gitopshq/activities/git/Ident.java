package dev.gitopshq.activities.git;

/** A commit author: who made the change, as Git records it. */
public record Ident(String name, String email) {
  /** The hub itself, the committer of every commit. */
  public static final Ident HUB = new Ident("GitOpsHQ", "hub@gitopshq.invalid");

  /** A member or service account of the hub; the email is synthetic and never delivered to. */
  public static Ident of(String actorType, String actorId, String actorName) {
    String name = actorName == null || actorName.isBlank() ? actorId : actorName;
    return new Ident(name, actorType + "-" + actorId + "@users.gitopshq.invalid");
  }
}

package dev.gitopshq.activities.git;

/** The project has no hosted repository (it was never created, or was deleted). */
public class NoSuchRepositoryException extends RuntimeException {
  public NoSuchRepositoryException(String message) {
    super(message);
  }
}

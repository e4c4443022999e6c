package dev.gitopshq.activities.git;

/** A branch moved under a commit that required it to stay where it was. */
public class ConcurrentChangeException extends RuntimeException {
  public ConcurrentChangeException(String message) {
    super(message);
  }
}

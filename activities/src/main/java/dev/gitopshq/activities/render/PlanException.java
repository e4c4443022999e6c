package dev.gitopshq.activities.render;

/**
 * The project's configuration cannot be planned into units; the message says what is wrong and
 * where, for the person who configured the project.
 */
public class PlanException extends RuntimeException {
  public PlanException(String message) {
    super(message);
  }

  public PlanException(String message, Throwable cause) {
    super(message, cause);
  }
}

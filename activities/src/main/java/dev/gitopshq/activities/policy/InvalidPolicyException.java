package dev.gitopshq.activities.policy;

import java.util.List;

/**
 * A policy was refused before it reached OPA: its name is not an RFC 1123 label, or its text does
 * not declare the package its name requires, defines the reserved rule, or is too large.
 */
public class InvalidPolicyException extends RuntimeException {
  private final List<Problem> problems;

  /**
   * One problem.
   *
   * @param field {@code name} or {@code rego}
   * @param reason what is wrong, as a sentence fragment ("must declare ...")
   */
  public record Problem(String field, String reason) {}

  public InvalidPolicyException(List<Problem> problems) {
    super(
        problems.stream()
            .map(p -> p.field() + ": " + p.reason())
            .reduce((a, b) -> a + "; " + b)
            .orElse("invalid policy"),
        null,
        false,
        false);
    this.problems = List.copyOf(problems);
  }

  public List<Problem> problems() {
    return problems;
  }
}

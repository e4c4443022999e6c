package dev.gitopshq.activities.render;

/** A {@code ${NAME}} reference to a variable that no HQ variable in scope defines. */
public class UndefinedVariableException extends PlanException {
  private final String variable;

  public UndefinedVariableException(String variable, String message) {
    super(message);
    this.variable = variable;
  }

  /** The name that was referenced. */
  public String variable() {
    return variable;
  }
}

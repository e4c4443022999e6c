package dev.gitopshq.agent.proxy;

/**
 * A proxy variable is invalid. The message names the variable and the problem, and never contains
 * the proxy's password.
 */
public final class ProxyConfigException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String variable;
  private final String problem;

  /**
   * Creates the exception.
   *
   * @param variable the environment variable at fault, as it was read (e.g. {@code https_proxy})
   * @param problem what is wrong with it, as a phrase that follows the variable's name
   */
  public ProxyConfigException(String variable, String problem) {
    super(variable + " " + problem);
    this.variable = variable;
    this.problem = problem;
  }

  /** The environment variable at fault. */
  public String variable() {
    return variable;
  }

  /** What is wrong with it. */
  public String problem() {
    return problem;
  }
}

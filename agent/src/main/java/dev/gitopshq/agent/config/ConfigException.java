package dev.gitopshq.agent.config;

/**
 * A configuration value is missing or invalid. The message names the environment variable and the
 * problem, and never contains a secret value.
 */
public final class ConfigException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String variable;

  /**
   * Creates the exception.
   *
   * @param variable the environment variable at fault
   * @param problem what is wrong with it, as a phrase that follows the variable's name
   */
  public ConfigException(String variable, String problem) {
    super(variable + " " + problem);
    this.variable = variable;
  }

  /** The environment variable at fault. */
  public String variable() {
    return variable;
  }
}

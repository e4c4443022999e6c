package dev.gitopshq.agent;

import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.ConfigException;
import dev.gitopshq.agent.config.DirectDeployConfig;

/**
 * The agent's process entry point: reads the configuration from the environment, starts an {@link
 * Agent}, stops it cleanly on SIGTERM or SIGINT, and exits with the agent's exit code (see {@link
 * Agent} for their meaning; a configuration error exits with 2).
 */
public final class AgentMain {

  private AgentMain() {}

  /** Runs the agent until it is stopped or gives up. Arguments are ignored. */
  public static void main(String[] args) {
    AgentConfig config;
    Agent agent;
    try {
      config = AgentConfig.fromEnv(System.getenv());
      agent = Agent.start(config, DirectDeployConfig.fromEnv(System.getenv()));
    } catch (ConfigException e) {
      // One line that names the variable; the message never holds a secret value.
      System.err.println("gitopshq-agent: configuration error: " + e.getMessage());
      System.exit(Agent.EXIT_CONFIGURATION);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(agent::close, "gitopshq-agent-shutdown"));
    int code = agent.exitCode().join();
    System.exit(code);
  }
}

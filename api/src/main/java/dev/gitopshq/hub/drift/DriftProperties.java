package dev.gitopshq.hub.drift;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Drift checks ({@code gitopshq.drift.*}).
 *
 * @param interval how often every connected cluster whose agent announced observe is checked
 *     (GITOPSHQ_DRIFT_INTERVAL, 15 min; 0 turns the interval off)
 * @param afterDeploymentDelay how long the check after a deployment waits for the runtime to apply
 *     it (GITOPSHQ_DRIFT_AFTER_DEPLOYMENT_DELAY, 2 min)
 * @param agentTimeout how long the hub waits for the agent's report (GITOPSHQ_DRIFT_AGENT_TIMEOUT,
 *     2 min)
 * @param sweep how often each replica looks for checks to run (GITOPSHQ_DRIFT_SWEEP, 5 s)
 */
@ConfigurationProperties("gitopshq.drift")
public record DriftProperties(
    Duration interval, Duration afterDeploymentDelay, Duration agentTimeout, Duration sweep) {
  public DriftProperties {
    interval = interval == null ? Duration.ofMinutes(15) : interval;
    afterDeploymentDelay =
        afterDeploymentDelay == null ? Duration.ofMinutes(2) : afterDeploymentDelay;
    agentTimeout = agentTimeout == null ? Duration.ofMinutes(2) : agentTimeout;
    sweep = sweep == null ? Duration.ofSeconds(5) : sweep;
  }
}

package dev.gitopshq.workflows.release;

import java.util.Map;

/**
 * How a deployment ended.
 *
 * @param commits environment name to the commit written on its {@code deploy/<environment>} branch
 *     (empty unless deployed)
 */
public record DeploymentResult(
    DeploymentStatus status, String detail, Map<String, String> commits) {
  public DeploymentResult {
    commits = commits == null ? Map.of() : Map.copyOf(commits);
  }
}

package dev.gitopshq.activities.audit;

/**
 * Who did something: a member, a service account, an agent (cluster), or the hub itself (for
 * workflow-driven changes such as a token expiring).
 *
 * @param type member, service_account, agent or system
 * @param id the actor's id
 * @param name what auditors read: an email, a service account or cluster name, or a component
 */
public record Actor(String type, String id, String name) {
  public static Actor system(String component) {
    return new Actor("system", component, component);
  }

  public static Actor agent(String clusterId, String clusterName) {
    return new Actor("agent", clusterId, clusterName);
  }
}

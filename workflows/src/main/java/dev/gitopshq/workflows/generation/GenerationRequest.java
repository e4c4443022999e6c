package dev.gitopshq.workflows.generation;

/**
 * One delivery generation of a project at a configuration revision.
 *
 * @param revision the project's configuration revision to generate (its commit on main)
 * @param trigger what asked for it: config, webhook, manual, org
 * @param actor who caused it, as shown in the commit message
 */
public record GenerationRequest(
    String orgId, String projectId, long revision, String trigger, String actor) {

  /** The stable workflow id: one generation per project revision. */
  public static String workflowId(String projectId, long revision) {
    return "delivery-" + projectId + "-r" + revision;
  }
}

package dev.gitopshq.activities.delivery;

import dev.gitopshq.activities.cluster.LabelSelector;
import java.util.UUID;

/**
 * An environment a project delivers to, with the organization environment's name and position.
 *
 * @param clusterSelector the label selector of the clusters it binds besides those it names, as
 *     JSON; null when it binds by name only ({@link #selector()})
 * @param selectorDeliveryMode how the clusters the selector binds are delivered to
 */
public record ProjectEnvironmentRow(
    UUID orgId,
    UUID projectId,
    UUID environmentId,
    String environment,
    int position,
    String namespacePattern,
    boolean createNamespace,
    String clusterSelector,
    String selectorDeliveryMode) {

  /** The selector, or null when the environment has none (it then selects no cluster). */
  public LabelSelector selector() {
    return DeliveryJson.selector(clusterSelector);
  }
}

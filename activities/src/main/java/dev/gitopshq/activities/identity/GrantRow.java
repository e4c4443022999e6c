package dev.gitopshq.activities.identity;

import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.DeliveryJson;
import java.time.Instant;
import java.util.UUID;

/**
 * A team's role somewhere: on one project ({@code scope = project}, {@code projectId}), on every
 * project ({@code projects}), or on the clusters a label selector matches ({@code clusters}, {@code
 * selectorJson}, JSON of a {@link LabelSelector}).
 */
public record GrantRow(
    UUID id,
    UUID orgId,
    UUID teamId,
    String teamName,
    String role,
    String scope,
    UUID projectId,
    String selectorJson,
    String createdBy,
    Instant createdAt) {

  public static final String PROJECT = "project";
  public static final String PROJECTS = "projects";
  public static final String CLUSTERS = "clusters";

  /** The selector of a clusters grant, or null. */
  public LabelSelector selector() {
    return DeliveryJson.selector(selectorJson);
  }
}

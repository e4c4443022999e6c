package dev.gitopshq.agent.v1;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The labels a direct apply adds to every object it applies (over the file's own labels): the
 * agent's apply plan writes them, and the hub's drift check adds them to the desired objects of a
 * direct-mode cluster, so it compares what the agent applied rather than the bare file.
 */
public final class DirectLabels {
  /** The label every object of a direct apply carries, with {@link #MANAGED_BY_VALUE}. */
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";

  public static final String MANAGED_BY_VALUE = "gitopshq";

  /** Marks an object as placed by a direct apply (value {@link #DELIVERY_VALUE}). */
  public static final String DELIVERY = "gitopshq.dev/delivery";

  public static final String DELIVERY_VALUE = "direct";
  public static final String PROJECT = "gitopshq.dev/project";
  public static final String ENVIRONMENT = "gitopshq.dev/environment";
  public static final String TENANT = "gitopshq.dev/tenant";

  private DirectLabels() {}

  /** The labels of a direct delivery's objects, in this order. */
  public static Map<String, String> of(String project, String environment, String tenant) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(MANAGED_BY, MANAGED_BY_VALUE);
    labels.put(DELIVERY, DELIVERY_VALUE);
    labels.put(PROJECT, project);
    labels.put(ENVIRONMENT, environment);
    labels.put(TENANT, tenant);
    return labels;
  }
}

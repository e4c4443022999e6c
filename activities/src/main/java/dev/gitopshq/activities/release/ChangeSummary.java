package dev.gitopshq.activities.release;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What a deployment changes on its deploy branches, as stored when its decision was asked for
 * ({@link DeploymentChanges#summary}) and shown by the API: objects added, changed and removed; how
 * many of them are cluster-scoped, RBAC, or either ({@code sensitive}); container image changes;
 * changed manifest files that could not be read; {@code truncated} when the policy input's lists
 * were cut (the counts are exact).
 */
public record ChangeSummary(
    long added,
    long changed,
    long removed,
    long clusterScoped,
    long rbac,
    long sensitive,
    long images,
    long unreadable,
    boolean truncated) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The stored summary (snake_case JSON); null for null (not decided yet). */
  public static ChangeSummary fromJson(String json) {
    if (json == null) {
      return null;
    }
    try {
      JsonNode n = JSON.readTree(json);
      return new ChangeSummary(
          n.path("added").asLong(),
          n.path("changed").asLong(),
          n.path("removed").asLong(),
          n.path("cluster_scoped").asLong(),
          n.path("rbac").asLong(),
          n.path("sensitive").asLong(),
          n.path("images").asLong(),
          n.path("unreadable").asLong(),
          n.path("truncated").asBoolean());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored change summary is not JSON", e);
    }
  }
}

package dev.gitopshq.activities.release;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.workflows.release.FreezeCheck;
import java.util.UUID;

/**
 * Asks the {@code gitopshq.freeze} policy whether a deployment's environments are frozen. Fails
 * closed: any way of not getting a decision is an exception.
 */
@FunctionalInterface
public interface FreezeGate {
  /**
   * @param input the freeze input document (action, project, environments, break_glass, time)
   */
  FreezeCheck check(UUID orgId, JsonNode input);
}

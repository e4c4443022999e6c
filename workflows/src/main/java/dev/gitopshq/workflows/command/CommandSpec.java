package dev.gitopshq.workflows.command;

import dev.gitopshq.workflows.governance.Requester;
import java.util.Map;

/**
 * A validated command request.
 *
 * @param type sync, rollback, restart or scale
 * @param params replicas (scale), revision or historyId (rollback)
 * @param breakGlassJustification set when the requester invoked break-glass
 */
public record CommandSpec(
    String orgId,
    String commandId,
    String clusterId,
    String clusterName,
    String type,
    CommandTarget target,
    Map<String, String> params,
    String reason,
    Requester requester,
    String breakGlassJustification) {
  public CommandSpec {
    params = params == null ? Map.of() : Map.copyOf(params);
  }

  public boolean breakGlass() {
    return breakGlassJustification != null;
  }
}

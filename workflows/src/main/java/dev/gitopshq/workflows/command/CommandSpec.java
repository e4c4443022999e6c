package dev.gitopshq.workflows.command;

import dev.gitopshq.workflows.governance.Requester;
import java.util.Map;

/**
 * A validated command request.
 *
 * @param type a command type's name, as command_types.proto declares it
 * @param params the type's params, as text
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

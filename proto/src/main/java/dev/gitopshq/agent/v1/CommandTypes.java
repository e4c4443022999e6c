package dev.gitopshq.agent.v1;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The command types the hub sends in {@code CommandRequest.type} and the capability each needs.
 * This is the one list: the hub's request validation and policy checks and the agent's runner all
 * derive from it.
 */
public final class CommandTypes {
  public static final String SYNC = "sync";
  public static final String ROLLBACK = "rollback";
  public static final String RESTART = "restart";
  public static final String SCALE = "scale";

  /** Argo CD hard refresh: re-read the source and recompute the diff, without syncing. */
  public static final String REFRESH = "refresh";

  /** Each command type and the capability an agent must report to run it, in the API's order. */
  public static final Map<String, String> REQUIRED_CAPABILITY;

  static {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(SYNC, Capabilities.ARGOCD_WRITE);
    m.put(ROLLBACK, Capabilities.ARGOCD_WRITE);
    m.put(RESTART, Capabilities.KUBERNETES_RESTART);
    m.put(SCALE, Capabilities.KUBERNETES_SCALE);
    m.put(REFRESH, Capabilities.ARGOCD_WRITE);
    REQUIRED_CAPABILITY = java.util.Collections.unmodifiableMap(m);
  }

  /** Every command type, in the API's order. */
  public static final List<String> ALL = List.copyOf(REQUIRED_CAPABILITY.keySet());

  private CommandTypes() {}

  /** True for a command type this version of the protocol knows. */
  public static boolean isKnown(String type) {
    return REQUIRED_CAPABILITY.containsKey(type);
  }

  /** The capability a command type needs, if the type is known. */
  public static Optional<String> capabilityFor(String type) {
    return Optional.ofNullable(REQUIRED_CAPABILITY.get(type));
  }
}

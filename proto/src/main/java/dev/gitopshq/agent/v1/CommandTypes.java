package dev.gitopshq.agent.v1;

import java.util.Collections;
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

  /**
   * Re-applies a drift finding's desired state with server-side apply ({@code direct.deploy}), or,
   * when an Argo CD Application manages the object (param {@value #PARAM_APPLICATION}), asks Argo
   * CD to sync it ({@code argocd.write}). See {@link #capabilityFor(String, Map)}.
   */
  public static final String RESOLVE_DRIFT = "resolve-drift";

  /** resolve-drift: the drift finding's id. */
  public static final String PARAM_FINDING = "findingId";

  /** resolve-drift: the managing Argo CD Application as namespace/name, when there is one. */
  public static final String PARAM_APPLICATION = "application";

  /** resolve-drift: the field manager of the server-side apply. */
  public static final String PARAM_FIELD_MANAGER = "fieldManager";

  /** Each command type and the capability an agent must report to run it, in the API's order. */
  public static final Map<String, String> REQUIRED_CAPABILITY;

  static {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(SYNC, Capabilities.ARGOCD_WRITE);
    m.put(ROLLBACK, Capabilities.ARGOCD_WRITE);
    m.put(RESTART, Capabilities.KUBERNETES_RESTART);
    m.put(SCALE, Capabilities.KUBERNETES_SCALE);
    m.put(REFRESH, Capabilities.ARGOCD_WRITE);
    m.put(RESOLVE_DRIFT, Capabilities.DIRECT_DEPLOY);
    REQUIRED_CAPABILITY = Collections.unmodifiableMap(m);
  }

  /** Every command type, in the API's order. */
  public static final List<String> ALL = List.copyOf(REQUIRED_CAPABILITY.keySet());

  private CommandTypes() {}

  /** True for a command type this version of the protocol knows. */
  public static boolean isKnown(String type) {
    return REQUIRED_CAPABILITY.containsKey(type);
  }

  /**
   * The capability a command with these params needs: as {@link #capabilityFor(String)}, except
   * that a resolve-drift through Argo CD (param {@value #PARAM_APPLICATION}) needs {@code
   * argocd.write} instead of {@code direct.deploy}.
   */
  public static Optional<String> capabilityFor(String type, Map<String, String> params) {
    if (RESOLVE_DRIFT.equals(type)
        && params != null
        && !params.getOrDefault(PARAM_APPLICATION, "").isEmpty()) {
      return Optional.of(Capabilities.ARGOCD_WRITE);
    }
    return capabilityFor(type);
  }

  /** The capability a command type needs, if the type is known. */
  public static Optional<String> capabilityFor(String type) {
    return Optional.ofNullable(REQUIRED_CAPABILITY.get(type));
  }
}

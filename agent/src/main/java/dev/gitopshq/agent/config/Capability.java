package dev.gitopshq.agent.config;

import dev.gitopshq.agent.v1.Capabilities;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A capability the agent can be configured with (the protocol's {@link Capabilities}, each with
 * what it lets the agent do), by its seed name (the name that travels in {@code
 * RegisterRequest.capabilities} and {@code Hello.capabilities}).
 */
public enum Capability {
  /** Inventory browsing and resource inspection. */
  OBSERVE(Capabilities.OBSERVE),
  /** Namespace-scoped pod diagnostics and log streaming. */
  DIAGNOSTICS_READ(Capabilities.DIAGNOSTICS_READ),
  /** Reading Argo CD application status. */
  ARGOCD_READ(Capabilities.ARGOCD_READ),
  /** Syncing and rolling back Argo CD applications. */
  ARGOCD_WRITE(Capabilities.ARGOCD_WRITE),
  /** Applying manifests directly, without Argo CD. */
  DIRECT_DEPLOY(Capabilities.DIRECT_DEPLOY),
  /** Rolling restarts of Deployments. */
  KUBERNETES_RESTART(Capabilities.KUBERNETES_RESTART),
  /** Scaling Deployments. */
  KUBERNETES_SCALE(Capabilities.KUBERNETES_SCALE),
  /** Syncing credentials from the hub into the cluster. */
  CREDENTIAL_SYNC(Capabilities.CREDENTIAL_SYNC),
  /** Hub-initiated rotation of the agent token. */
  TOKEN_ROTATE(Capabilities.TOKEN_ROTATE),
  /** Creating and keeping the runtime adapter's objects (Flux or Argo CD) the hub asks for. */
  ADAPTER_WIRE(Capabilities.ADAPTER_WIRE);

  private final String seedName;

  Capability(String seedName) {
    this.seedName = seedName;
  }

  /** The name used on the wire, e.g. {@code argocd.read}. */
  public String seedName() {
    return seedName;
  }

  /** The capability with the given seed name, if there is one. */
  public static Optional<Capability> fromSeedName(String name) {
    return Arrays.stream(values()).filter(c -> c.seedName.equals(name)).findFirst();
  }

  /** All seed names, comma-separated, for error messages. */
  public static String allSeedNames() {
    return Arrays.stream(values()).map(Capability::seedName).collect(Collectors.joining(", "));
  }
}

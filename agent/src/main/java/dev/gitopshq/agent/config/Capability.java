package dev.gitopshq.agent.config;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A capability the agent can be configured with, by its seed name (the name that travels in {@code
 * RegisterRequest.capabilities} and {@code Hello.capabilities}).
 */
public enum Capability {
  /** Inventory browsing and resource inspection. */
  OBSERVE("observe"),
  /** Namespace-scoped pod diagnostics and log streaming. */
  DIAGNOSTICS_READ("diagnostics.read"),
  /** Reading Argo CD application status. */
  ARGOCD_READ("argocd.read"),
  /** Syncing and rolling back Argo CD applications. */
  ARGOCD_WRITE("argocd.write"),
  /** Applying manifests directly, without Argo CD. */
  DIRECT_DEPLOY("direct.deploy"),
  /** Rolling restarts of Deployments. */
  KUBERNETES_RESTART("kubernetes.restart"),
  /** Scaling Deployments. */
  KUBERNETES_SCALE("kubernetes.scale"),
  /** Syncing credentials from the hub into the cluster. */
  CREDENTIAL_SYNC("credential.sync"),
  /** Hub-initiated rotation of the agent token. */
  TOKEN_ROTATE("token.rotate");

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

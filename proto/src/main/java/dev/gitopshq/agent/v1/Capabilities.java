package dev.gitopshq.agent.v1;

import java.util.List;
import java.util.Set;

/**
 * The capability names agents report in {@code Hello} and {@code RegisterRequest}, exactly as the
 * product documents name them. Hub and agent share this list so neither accepts a name the other
 * would not understand.
 */
public final class Capabilities {
  public static final String OBSERVE = "observe";
  public static final String DIAGNOSTICS_READ = "diagnostics.read";
  public static final String ARGOCD_READ = "argocd.read";
  public static final String ARGOCD_WRITE = "argocd.write";
  public static final String DIRECT_DEPLOY = "direct.deploy";
  public static final String KUBERNETES_RESTART = "kubernetes.restart";
  public static final String KUBERNETES_SCALE = "kubernetes.scale";
  public static final String CREDENTIAL_SYNC = "credential.sync";
  public static final String TOKEN_ROTATE = "token.rotate";

  /**
   * Not in the original documents: the agent creates and keeps the runtime adapter's objects (Flux
   * or Argo CD) for the project environments bound to its cluster, and asks them to reconcile when
   * the hub commits.
   */
  public static final String ADAPTER_WIRE = "adapter.wire";

  /** Every known capability, in the documents' order. */
  public static final List<String> ALL =
      List.of(
          OBSERVE,
          DIAGNOSTICS_READ,
          ARGOCD_READ,
          ARGOCD_WRITE,
          DIRECT_DEPLOY,
          KUBERNETES_RESTART,
          KUBERNETES_SCALE,
          CREDENTIAL_SYNC,
          TOKEN_ROTATE,
          ADAPTER_WIRE);

  private static final Set<String> KNOWN = Set.copyOf(ALL);

  private Capabilities() {}

  /** True for a capability name this version of the protocol knows. */
  public static boolean isKnown(String name) {
    return KNOWN.contains(name);
  }
}

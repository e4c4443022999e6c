package dev.gitopshq.agent;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.function.Supplier;

/** Creates the Kubernetes client on first use, and closes it only if the agent created it. */
final class LazyKube implements Supplier<KubernetesClient> {

  private final Supplier<KubernetesClient> factory;
  private final boolean owned;
  private KubernetesClient client;

  LazyKube(Supplier<KubernetesClient> factory, boolean owned) {
    this.factory = factory;
    this.owned = owned;
  }

  @Override
  public synchronized KubernetesClient get() {
    if (client == null) {
      client = factory.get();
    }
    return client;
  }

  synchronized void close() {
    if (owned && client != null) {
      client.close();
      client = null;
    }
  }
}

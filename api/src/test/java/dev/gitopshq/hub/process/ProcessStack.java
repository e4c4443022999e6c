package dev.gitopshq.hub.process;

import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/**
 * What each hub-process test runs around its hubs: the shared backends, the mock cluster with its
 * demo workloads and the agent's gated client to it. Hubs, proxies and agents added with {@link
 * #add} are closed first, newest first; every step of {@link #close} runs even when one fails.
 */
final class ProcessStack implements AutoCloseable {
  final SharedBackends backends;
  final TestKube kube;
  final DeploymentWrites writes = new DeploymentWrites();
  final KubernetesClient agentKube;
  private final List<AutoCloseable> added = new ArrayList<>();

  private ProcessStack(SharedBackends backends, TestKube kube) {
    this.backends = backends;
    this.kube = kube;
    this.agentKube = writes.client(kube);
  }

  static ProcessStack start() {
    SharedBackends backends = SharedBackends.start();
    try {
      return new ProcessStack(backends, TestKube.start().seedDemo());
    } catch (RuntimeException e) {
      backends.close();
      throw e;
    }
  }

  <T extends AutoCloseable> T add(T closeable) {
    added.add(closeable);
    return closeable;
  }

  /** The demo Deployment's replicas as the cluster has them. */
  int replicas() {
    return kube.client()
        .apps()
        .deployments()
        .inNamespace(TestKube.DEMO_NAMESPACE)
        .withName(TestKube.DEMO_DEPLOYMENT)
        .get()
        .getSpec()
        .getReplicas();
  }

  @Override
  public void close() {
    writes.open();
    List<AutoCloseable> order = new ArrayList<>(added);
    java.util.Collections.reverse(order);
    order.add(agentKube);
    order.add(kube);
    order.add(backends);
    RuntimeException failure = null;
    for (AutoCloseable c : order) {
      try {
        c.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("closing the test stack failed", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}

package dev.gitopshq.hub.process;

import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's Kubernetes client, with a gate on the wire in front of the mock API server: every
 * write to the demo Deployment ({@code demo/web}) is counted as it leaves for the API server, and
 * while the gate is closed it waits there, as a slow API server would keep it waiting.
 */
final class DeploymentWrites implements Interceptor {
  private static final String PATH =
      "/apis/apps/v1/namespaces/"
          + TestKube.DEMO_NAMESPACE
          + "/deployments/"
          + TestKube.DEMO_DEPLOYMENT;

  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicInteger waiting = new AtomicInteger();
  private volatile Instant lastSentAt;
  private boolean closed;

  /** A client for {@code kube} whose Deployment writes pass this gate. */
  KubernetesClient client(TestKube kube) {
    return new KubernetesClientBuilder()
        .withConfig(kube.client().getConfiguration())
        .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("deployment-writes", this))
        .build();
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    String path = request.uri().getPath();
    if ("GET".equals(request.method()) || !path.startsWith(PATH)) {
      return;
    }
    waiting.incrementAndGet();
    try {
      synchronized (this) {
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (closed && System.nanoTime() < until) {
          wait(100);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      waiting.decrementAndGet();
    }
    lastSentAt = Instant.now();
    sent.incrementAndGet();
  }

  /** When the last write left for the API server. */
  Instant lastSentAt() {
    return lastSentAt;
  }

  /** Writes to the Deployment that went to the API server. */
  int sent() {
    return sent.get();
  }

  /** Writes held at the closed gate right now. */
  int waiting() {
    return waiting.get();
  }

  synchronized void close() {
    closed = true;
  }

  synchronized void open() {
    closed = false;
    notifyAll();
  }
}

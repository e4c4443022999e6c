package dev.gitopshq.agent.kube;

import dev.gitopshq.agent.v1.ClusterIdentity;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the agent tells the hub about its cluster in Register and Hello, for the admin who accepts
 * or rejects it (hub acceptance): the SHA-256 of the API server URL (the address itself never
 * leaves the cluster), the node count, the API server's version and the cluster's labels as the
 * chart sets them. Each part the agent cannot read (no RBAC to list nodes, the API server
 * unreachable) is left out; reporting never fails.
 *
 * <p>Reading runs on its own thread and a Register or Hello waits for it at most {@link #WAIT}: a
 * slow API server (the client retries for a long time) must not hold up the link to the hub. The
 * last complete report is used meanwhile; before the first one, none is sent.
 */
public final class ClusterIdentityReport implements Supplier<ClusterIdentity> {
  private static final Logger log = LoggerFactory.getLogger(ClusterIdentityReport.class);

  /** How long Register or Hello waits for a fresh report. */
  static final Duration WAIT = Duration.ofSeconds(3);

  private final Supplier<KubernetesClient> client;
  private final Map<String, String> labels;
  private final Executor reader =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "gitopshq-cluster-identity");
            t.setDaemon(true);
            return t;
          });
  private CompletableFuture<ClusterIdentity> reading;
  private ClusterIdentity last;

  public ClusterIdentityReport(Supplier<KubernetesClient> client) {
    this(client, Map.of());
  }

  /**
   * @param labels the cluster's labels as the chart sets them ({@code cluster.labels}), reported
   *     with every identity
   */
  public ClusterIdentityReport(Supplier<KubernetesClient> client, Map<String, String> labels) {
    this.client = client;
    this.labels = Map.copyOf(labels);
  }

  /** A fresh report, or the last one if reading takes longer than {@link #WAIT}; null if none. */
  @Override
  public synchronized ClusterIdentity get() {
    if (reading == null || reading.isDone()) {
      reading = CompletableFuture.supplyAsync(this::read, reader);
    }
    try {
      last = reading.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.debug("the cluster's identity is still being read; reporting the last one");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      log.warn("cannot report the cluster's identity: {}", e.getCause().toString());
    }
    return last;
  }

  /** Reads the identity now, leaving out what cannot be read. */
  ClusterIdentity read() {
    ClusterIdentity.Builder id = ClusterIdentity.newBuilder().putAllLabels(labels);
    KubernetesClient kube;
    try {
      kube = client.get();
    } catch (RuntimeException e) {
      log.warn("cannot report the cluster's identity: no Kubernetes client ({})", e.toString());
      return id.build();
    }
    if (kube.getMasterUrl() != null) {
      id.setApiServerUrlSha256(sha256(kube.getMasterUrl().toString()));
    }
    try {
      VersionInfo version = kube.getKubernetesVersion();
      if (version != null && version.getGitVersion() != null) {
        id.setKubernetesVersion(version.getGitVersion());
      }
    } catch (RuntimeException e) {
      log.warn("cannot read the API server's version for the hub: {}", e.toString());
    }
    try {
      id.setNodeCount(nodeCount(kube));
    } catch (RuntimeException e) {
      log.warn("cannot count the cluster's nodes for the hub: {}", e.toString());
    }
    return id.build();
  }

  /**
   * One page of one node and the API server's count of the rest, so a large cluster is not listed
   * on every reconnect; a server that does not count gets the full list.
   */
  private static int nodeCount(KubernetesClient kube) {
    NodeList first = kube.nodes().list(new ListOptionsBuilder().withLimit(1L).build());
    int here = first.getItems().size();
    Long rest = first.getMetadata() == null ? null : first.getMetadata().getRemainingItemCount();
    if (rest != null) {
      return (int) Math.min(Integer.MAX_VALUE, here + rest);
    }
    String more = first.getMetadata() == null ? null : first.getMetadata().getContinue();
    if (more == null || more.isEmpty()) {
      return here;
    }
    return kube.nodes().list().getItems().size();
  }

  /** SHA-256 of the URL's text, lowercase hex; the hub shows it to compare clusters, never more. */
  static String sha256(String url) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(url.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always available", e);
    }
  }
}

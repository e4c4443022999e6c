package dev.gitopshq.activities.render;

import com.marcnuri.helm.Helm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way into Helm's Go library.
 *
 * <p>helm-java's {@code template} builds a Kubernetes client from the usual places (KUBECONFIG,
 * {@code ~/.kube/config}, the in-cluster service account), so a chart's {@code lookup} would read
 * whatever cluster those name, with that identity. Charts that call {@code lookup} are refused
 * before Helm runs ({@link ChartArchive#lookupUse}); as a second line, the hub should run where
 * none of those places names a cluster (the hub's Helm chart mounts no service-account token, and
 * {@code make run} gives the hub a kubeconfig whose one cluster is a closed port). Go reads the
 * environment the JVM was started with, the same one {@link System#getenv} shows, so the first use
 * checks it and says loudly when a cluster is reachable that way.
 */
final class HelmProcess {
  private static final Logger log = LoggerFactory.getLogger(HelmProcess.class);

  /** The message of Helm's error when a template's {@code lookup} finds no cluster. */
  static final String LOOKUP_ERROR = "error calling lookup";

  private static volatile boolean checked;

  private HelmProcess() {}

  /** A Helm client for a chart. */
  static Helm helm(Path chart) {
    if (!checked) {
      check(System.getenv(), Path.of(System.getProperty("user.home", "/nonexistent")));
    }
    return new Helm(chart);
  }

  private static synchronized void check(Map<String, String> env, Path home) {
    if (checked) {
      return;
    }
    checked = true;
    List<String> reachable = clusterSources(env, home);
    if (!reachable.isEmpty()) {
      log.warn(
          "Helm renders run where a Kubernetes cluster is configured ({}); charts that call lookup"
              + " are refused, but run the hub without KUBECONFIG, ~/.kube/config or a mounted"
              + " service-account token so that no template can reach a cluster",
          String.join(", ", reachable));
    }
  }

  /** The places Helm's client would find a cluster in, for this environment. */
  static List<String> clusterSources(Map<String, String> env, Path home) {
    List<String> out = new ArrayList<>();
    String kubeconfig = env.get("KUBECONFIG");
    if (kubeconfig != null && !kubeconfig.isBlank()) {
      for (String file : kubeconfig.split(":")) {
        if (!file.isBlank() && Files.isReadable(Path.of(file)) && !noCluster(Path.of(file))) {
          out.add("KUBECONFIG " + file);
        }
      }
    } else if (Files.isReadable(home.resolve(".kube/config"))) {
      out.add(home.resolve(".kube/config").toString());
    }
    if (env.containsKey("KUBERNETES_SERVICE_HOST")
        && Files.exists(Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token"))) {
      out.add("the in-cluster service account");
    }
    return out;
  }

  /** A kubeconfig whose every server is a closed loopback port (the one make run writes). */
  private static boolean noCluster(Path file) {
    try {
      List<String> servers =
          Files.readAllLines(file).stream()
              .map(String::strip)
              .filter(l -> l.startsWith("server:"))
              .toList();
      return !servers.isEmpty()
          && servers.stream().allMatch(l -> l.equals("server: http://127.0.0.1:1"));
    } catch (java.io.IOException e) {
      return false;
    }
  }
}

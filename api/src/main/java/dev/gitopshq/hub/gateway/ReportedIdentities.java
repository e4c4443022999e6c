package dev.gitopshq.hub.gateway;

import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.registration.RegistrationStore.ReportedIdentity;
import dev.gitopshq.agent.v1.ClusterIdentity;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/** Checks and converts the cluster identity an agent reports in Register and Hello. */
final class ReportedIdentities {
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern VERSION = Pattern.compile("[0-9A-Za-z.+_-]{0,64}");

  /** More nodes than any Kubernetes cluster supports by far. */
  static final int MAX_NODES = 1_000_000;

  /** As many labels as the hub accepts on a cluster. */
  static final int MAX_LABELS = 64;

  private ReportedIdentities() {}

  /** Null when valid (an absent identity is); otherwise "field: reason". */
  static String invalid(ClusterIdentity id) {
    if (!id.getApiServerUrlSha256().isEmpty()
        && !SHA256.matcher(id.getApiServerUrlSha256()).matches()) {
      return "identity.api_server_url_sha256: must be 64 lowercase hex characters";
    }
    if (id.getNodeCount() < 0 || id.getNodeCount() > MAX_NODES) {
      return "identity.node_count: must be between 0 and " + MAX_NODES;
    }
    if (!VERSION.matcher(id.getKubernetesVersion()).matches()) {
      return "identity.kubernetes_version: at most 64 characters of letters, digits and . + _ -";
    }
    if (id.getLabelsCount() > MAX_LABELS) {
      return "identity.labels: at most " + MAX_LABELS + " labels";
    }
    for (Map.Entry<String, String> e : new TreeMap<>(id.getLabelsMap()).entrySet()) {
      String why = LabelSelector.keyProblem(e.getKey());
      if (why == null) {
        why = LabelSelector.valueProblem(e.getValue());
      }
      if (why != null) {
        return "identity.labels." + LogSafe.text(e.getKey()) + ": " + why;
      }
    }
    return null;
  }

  /** Stores the identity an agent reported in Hello, for the admin who decides about it. */
  static void record(
      ClusterMapper clusters, UUID orgId, UUID clusterId, ClusterIdentity id, Instant now) {
    clusters.reportIdentity(
        orgId,
        clusterId,
        id.getApiServerUrlSha256().isEmpty() ? null : id.getApiServerUrlSha256(),
        id.getNodeCount(),
        id.getKubernetesVersion(),
        now);
  }

  static ReportedIdentity of(ClusterIdentity id) {
    return new ReportedIdentity(
        id.getApiServerUrlSha256(),
        id.getNodeCount(),
        id.getKubernetesVersion(),
        id.getLabelsMap());
  }
}

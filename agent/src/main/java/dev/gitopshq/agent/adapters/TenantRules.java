package dev.gitopshq.agent.adapters;

import dev.gitopshq.agent.v1.TenantFence;
import dev.gitopshq.agent.v1.TenantFences;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The RBAC of a tenant's ServiceAccount, derived from the project's fence and the API resources the
 * cluster serves: every namespaced resource whose kind the fence does not deny (bound only in the
 * tenant's namespaces), the cluster-scoped kinds the fence allows, and the Namespaces the delivery
 * creates, by name. RBAC cannot subtract, so the kinds are listed one by one.
 */
public final class TenantRules {
  /** One API resource the cluster serves. */
  public record Resource(String group, String kind, String plural, boolean namespaced) {}

  /** Rules for the namespaced ClusterRole (bound per namespace) and the cluster-wide one. */
  public record Rules(List<Map<String, Object>> namespaced, List<Map<String, Object>> cluster) {}

  private TenantRules() {}

  public static Rules derive(
      TenantFence fence, List<Resource> resources, List<String> createdNamespaces) {
    Map<String, TreeSet<String>> namespaced = new TreeMap<>();
    Map<String, TreeSet<String>> cluster = new TreeMap<>();
    for (Resource r : resources) {
      if (r.plural().contains("/") || denied(fence, r)) {
        continue;
      }
      if (r.namespaced()) {
        namespaced.computeIfAbsent(r.group(), g -> new TreeSet<>()).add(r.plural());
      } else if (!(r.group().isEmpty() && r.kind().equals("Namespace"))
          && allowedCluster(fence, r)) {
        cluster.computeIfAbsent(r.group(), g -> new TreeSet<>()).add(r.plural());
      }
    }
    List<Map<String, Object>> clusterRules = rules(cluster);
    if (!createdNamespaces.isEmpty()) {
      Map<String, Object> rule = new LinkedHashMap<>();
      rule.put("apiGroups", List.of(""));
      rule.put("resources", List.of("namespaces"));
      rule.put("resourceNames", List.copyOf(new TreeSet<>(createdNamespaces)));
      // Server-side apply creates with a patch, which resourceNames can restrict.
      rule.put("verbs", List.of("get", "patch", "update", "delete"));
      clusterRules.add(rule);
    }
    return new Rules(rules(namespaced), clusterRules);
  }

  private static boolean denied(TenantFence fence, Resource r) {
    for (String entry : fence.getDeniedKindsList()) {
      if (TenantFences.kindMatches(entry, r.group(), r.kind())) {
        return true;
      }
    }
    return false;
  }

  private static boolean allowedCluster(TenantFence fence, Resource r) {
    for (String entry : fence.getClusterScopedKindsList()) {
      if (TenantFences.kindMatches(entry, r.group(), r.kind())) {
        return true;
      }
    }
    return false;
  }

  private static List<Map<String, Object>> rules(Map<String, TreeSet<String>> byGroup) {
    List<Map<String, Object>> out = new ArrayList<>();
    byGroup.forEach(
        (group, plurals) -> {
          Map<String, Object> rule = new LinkedHashMap<>();
          rule.put("apiGroups", List.of(group));
          rule.put("resources", List.copyOf(plurals));
          rule.put("verbs", List.of("*"));
          out.add(rule);
        });
    return out;
  }
}

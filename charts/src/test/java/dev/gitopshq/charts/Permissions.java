package dev.gitopshq.charts;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a set of RBAC rules grants, flattened to {@code group/resource -> verbs} (the core group
 * written as {@code core}), so a test can compare it with a table as a whole. Rules limited by
 * {@code resourceNames} are kept apart under {@code group/resource[name,...]}.
 */
public final class Permissions {
  /** Verbs that change the cluster. */
  public static final Set<String> WRITE_VERBS =
      Set.of("create", "update", "patch", "delete", "deletecollection");

  /** Verbs that grant more than their own rule: never granted by the charts. */
  public static final Set<String> ESCALATING_VERBS = Set.of("escalate", "bind", "impersonate");

  private Permissions() {}

  public static Map<String, Set<String>> of(Collection<PolicyRule> rules) {
    Map<String, Set<String>> grants = new TreeMap<>();
    for (PolicyRule rule : rules) {
      if (rule.getNonResourceURLs() != null && !rule.getNonResourceURLs().isEmpty()) {
        throw new AssertionError("unexpected nonResourceURLs rule: " + rule);
      }
      List<String> names = rule.getResourceNames() == null ? List.of() : rule.getResourceNames();
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          String key =
              (group.isEmpty() ? "core" : group)
                  + "/"
                  + resource
                  + (names.isEmpty() ? "" : names.stream().sorted().toList().toString());
          grants.computeIfAbsent(key, k -> new TreeSet<>()).addAll(rule.getVerbs());
        }
      }
    }
    return grants;
  }

  /** Builds an expected table: {@code table("core/pods", "get,list,watch", ...)}. */
  public static Map<String, Set<String>> table(String... resourcesAndVerbs) {
    Map<String, Set<String>> table = new TreeMap<>();
    for (int i = 0; i < resourcesAndVerbs.length; i += 2) {
      for (String resource : resourcesAndVerbs[i].split(" ")) {
        table
            .computeIfAbsent(resource, k -> new TreeSet<>())
            .addAll(List.of(resourcesAndVerbs[i + 1].split(",")));
      }
    }
    return table;
  }

  /** Merges tables (for readonly plus the extra verbs of a write capability). */
  @SafeVarargs
  public static Map<String, Set<String>> union(Map<String, Set<String>>... tables) {
    Map<String, Set<String>> merged = new TreeMap<>();
    for (Map<String, Set<String>> t : tables) {
      t.forEach((k, v) -> merged.computeIfAbsent(k, x -> new TreeSet<>()).addAll(v));
    }
    return merged;
  }

  /** Every verb that occurs anywhere in these rules. */
  public static Set<String> verbs(Collection<PolicyRule> rules) {
    Set<String> verbs = new TreeSet<>();
    rules.forEach(r -> verbs.addAll(r.getVerbs()));
    return verbs;
  }
}

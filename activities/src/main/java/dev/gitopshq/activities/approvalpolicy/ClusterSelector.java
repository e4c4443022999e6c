package dev.gitopshq.activities.approvalpolicy;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A Kubernetes label selector over cluster labels: {@code matchLabels} (each pair must be present)
 * and {@code matchExpressions} ({@code In}, {@code NotIn}, {@code Exists}, {@code DoesNotExist}),
 * all ANDed, with Kubernetes' semantics: an empty selector matches every cluster, and {@code NotIn}
 * matches a cluster without the key.
 *
 * <p>Kept small and self-contained on purpose: the project environments' LabelSelector (issue 27,
 * item 1) is being written at the same time, and the two should become one type when both are in.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClusterSelector(
    Map<String, String> matchLabels, List<SelectorRequirement> matchExpressions) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static final Set<String> OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist");

  /** One expression: {@code key operator (values)}. */
  public record SelectorRequirement(String key, String operator, List<String> values) {
    boolean matches(Map<String, String> labels) {
      String v = labels.get(key);
      return switch (operator) {
        case "In" -> v != null && values != null && values.contains(v);
        case "NotIn" -> v == null || values == null || !values.contains(v);
        case "Exists" -> v != null;
        case "DoesNotExist" -> v == null;
        default -> false; // refused when saved; never matches if one slipped through
      };
    }

    String describe() {
      return switch (operator) {
        case "Exists" -> key;
        case "DoesNotExist" -> "!" + key;
        case "In" -> key + " in (" + String.join(",", values == null ? List.of() : values) + ")";
        case "NotIn" ->
            key + " notin (" + String.join(",", values == null ? List.of() : values) + ")";
        default -> key + " " + operator;
      };
    }
  }

  public ClusterSelector {
    matchLabels = matchLabels == null ? Map.of() : new TreeMap<>(matchLabels);
    matchExpressions = matchExpressions == null ? List.of() : List.copyOf(matchExpressions);
  }

  /** Whether a cluster with these labels is selected. */
  public boolean matches(Map<String, String> labels) {
    Map<String, String> l = labels == null ? Map.of() : labels;
    for (Map.Entry<String, String> e : matchLabels.entrySet()) {
      if (!e.getValue().equals(l.get(e.getKey()))) {
        return false;
      }
    }
    return matchExpressions.stream().allMatch(r -> r.matches(l));
  }

  /**
   * How specific the selector is: its number of requirements (each matchLabels pair and each
   * expression counts one). Among selectors that match a cluster, the one with more requirements
   * wins.
   */
  public int requirements() {
    return matchLabels.size() + matchExpressions.size();
  }

  /** The selector in kubectl's syntax, e.g. {@code tier=production,region in (eu,us)}. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    matchLabels.forEach((k, v) -> parts.add(k + "=" + v));
    matchExpressions.forEach(r -> parts.add(r.describe()));
    return parts.isEmpty() ? "(every cluster)" : String.join(",", parts);
  }

  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a selector is always serializable", e);
    }
  }

  /** The stored JSON, or null for null. */
  public static ClusterSelector fromJson(String json) {
    if (json == null) {
      return null;
    }
    try {
      return JSON.readValue(json, ClusterSelector.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored selector is not valid JSON", e);
    }
  }
}

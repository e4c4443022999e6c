package dev.gitopshq.activities.cluster;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A Kubernetes label selector over cluster labels, with Kubernetes' meaning: {@code matchLabels}
 * pairs and {@code matchExpressions} requirements are ANDed; an empty selector (neither given)
 * matches every cluster, while no selector at all (null where one is expected) matches none.
 *
 * <p>Operators: {@code In} (the label is set to one of the values), {@code NotIn} (the label is
 * absent or set to none of them), {@code Exists} and {@code DoesNotExist} (take no values).
 *
 * @param matchLabels {@code key: value} pairs, each the same as {@code key In (value)}
 * @param matchExpressions the requirements
 */
public record LabelSelector(Map<String, String> matchLabels, List<Requirement> matchExpressions) {

  /** The operators Kubernetes allows in a LabelSelector's matchExpressions. */
  public static final List<String> OPERATORS = List.of("In", "NotIn", "Exists", "DoesNotExist");

  /** The most pairs plus requirements one selector may have. */
  public static final int MAX_REQUIREMENTS = 32;

  /** The most values one requirement may list. */
  public static final int MAX_VALUES = 64;

  /** A selector that matches every cluster. */
  public static final LabelSelector EVERYTHING = new LabelSelector(Map.of(), List.of());

  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public LabelSelector {
    // Lenient copies (nulls kept) so that problems() can name what is wrong.
    matchLabels =
        matchLabels == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(matchLabels));
    matchExpressions =
        matchExpressions == null
            ? List.of()
            : Collections.unmodifiableList(new ArrayList<>(matchExpressions));
  }

  /**
   * One requirement.
   *
   * @param operator In, NotIn, Exists or DoesNotExist
   * @param values for In and NotIn (at least one); none for Exists and DoesNotExist
   */
  public record Requirement(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String key,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String operator,
      List<String> values) {
    public Requirement {
      values = values == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(values));
    }

    boolean matches(Map<String, String> labels) {
      boolean has = labels.containsKey(key);
      return switch (operator) {
        case "In" -> has && values.contains(labels.get(key));
        case "NotIn" -> !has || !values.contains(labels.get(key));
        case "Exists" -> has;
        case "DoesNotExist" -> !has;
        default -> throw new IllegalStateException("unchecked operator " + operator);
      };
    }

    @Override
    public String toString() {
      return switch (operator) {
        case "In" -> key + " in (" + String.join(",", values) + ")";
        case "NotIn" -> key + " notin (" + String.join(",", values) + ")";
        case "Exists" -> key;
        case "DoesNotExist" -> "!" + key;
        default -> key + " " + operator;
      };
    }
  }

  /** Whether a cluster with these labels is selected. Call only on a selector without problems. */
  public boolean matches(Map<String, String> labels) {
    Map<String, String> l = labels == null ? Map.of() : labels;
    for (Map.Entry<String, String> e : matchLabels.entrySet()) {
      if (!e.getValue().equals(l.get(e.getKey()))) {
        return false;
      }
    }
    return matchExpressions.stream().allMatch(r -> r.matches(l));
  }

  /** Whether this selector matches every cluster (it has no requirement). */
  public boolean selectsEverything() {
    return matchLabels.isEmpty() && matchExpressions.isEmpty();
  }

  /**
   * How specific the selector is: its number of requirements (each matchLabels pair and each
   * expression counts one). Among approval policies whose selectors match a cluster, the one with
   * more requirements wins.
   */
  public int requirements() {
    return matchLabels.size() + matchExpressions.size();
  }

  /** A field under the selector's own field and why it is not valid. */
  public record Problem(String field, String reason) {}

  /**
   * What is wrong with this selector, as Kubernetes validates a LabelSelector, with each field
   * named under {@code field} (e.g. {@code clusterSelector.matchExpressions[1].values}).
   */
  public List<Problem> problems(String field) {
    List<Problem> out = new ArrayList<>();
    if (requirements() > MAX_REQUIREMENTS) {
      out.add(
          new Problem(
              field,
              "must have at most "
                  + MAX_REQUIREMENTS
                  + " matchLabels and matchExpressions together"));
      return out;
    }
    matchLabels.forEach(
        (k, v) -> {
          String f = field + ".matchLabels." + k;
          String why = keyProblem(k);
          if (why != null) {
            out.add(new Problem(f, why));
          }
          why = v == null ? "must be a string" : valueProblem(v);
          if (why != null) {
            out.add(new Problem(f, why));
          }
        });
    for (int i = 0; i < matchExpressions.size(); i++) {
      String f = field + ".matchExpressions[" + i + "]";
      Requirement r = matchExpressions.get(i);
      if (r == null) {
        out.add(new Problem(f, "must be an object"));
        continue;
      }
      String why = keyProblem(r.key());
      if (why != null) {
        out.add(new Problem(f + ".key", why));
      }
      if (r.operator() == null || !OPERATORS.contains(r.operator())) {
        out.add(new Problem(f + ".operator", "must be one of " + String.join(", ", OPERATORS)));
        continue;
      }
      boolean takesValues = r.operator().equals("In") || r.operator().equals("NotIn");
      if (takesValues && r.values().isEmpty()) {
        out.add(new Problem(f + ".values", "must be non-empty for " + r.operator()));
      } else if (!takesValues && !r.values().isEmpty()) {
        out.add(new Problem(f + ".values", "must be empty for " + r.operator()));
      } else if (r.values().size() > MAX_VALUES) {
        out.add(new Problem(f + ".values", "must list at most " + MAX_VALUES + " values"));
      } else {
        for (String v : r.values()) {
          if (v == null) {
            out.add(new Problem(f + ".values", "must list strings"));
            continue;
          }
          String vwhy = valueProblem(v);
          if (vwhy != null) {
            out.add(new Problem(f + ".values", vwhy + " (" + v + ")"));
          }
        }
      }
    }
    return out;
  }

  /**
   * Why a label key is not valid, or null: a Kubernetes qualified name, an optional DNS subdomain
   * prefix of at most 253 characters and a slash, then a name of at most 63 alphanumerics, '-', '_'
   * or '.', starting and ending with an alphanumeric.
   */
  public static String keyProblem(String key) {
    if (key == null || key.isEmpty()) {
      return "label key is required";
    }
    String name = key;
    int slash = key.indexOf('/');
    if (slash >= 0) {
      String prefix = key.substring(0, slash);
      name = key.substring(slash + 1);
      if (prefix.isEmpty()
          || prefix.length() > 253
          || !DNS_SUBDOMAIN.matcher(prefix).matches()
          || name.indexOf('/') >= 0) {
        return "label key prefix must be a DNS subdomain of at most 253 characters (lowercase"
            + " letters, digits, '-' and '.'), followed by a single '/'";
      }
    }
    if (name.isEmpty() || name.length() > 63 || !NAME.matcher(name).matches()) {
      return "label key name must be 1-63 letters, digits, '-', '_' or '.', starting and ending"
          + " with a letter or digit";
    }
    return null;
  }

  /**
   * Why a label value is not valid, or null: empty, or at most 63 alphanumerics, '-', '_' or '.',
   * starting and ending with an alphanumeric.
   */
  public static String valueProblem(String value) {
    if (value == null) {
      return "label value must be a string";
    }
    if (!value.isEmpty() && (value.length() > 63 || !NAME.matcher(value).matches())) {
      return "label value must be at most 63 letters, digits, '-', '_' or '.', starting and ending"
          + " with a letter or digit";
    }
    return null;
  }

  /**
   * The selector in kubectl's string form, e.g. {@code tier=production,region in (eu-1,eu-2)}, or
   * {@code (every cluster)} for the empty selector.
   */
  public String describe() {
    if (selectsEverything()) {
      return "(every cluster)";
    }
    List<String> parts = new ArrayList<>();
    matchLabels.forEach((k, v) -> parts.add(k + "=" + v));
    matchExpressions.forEach(r -> parts.add(r.toString()));
    return String.join(",", parts);
  }

  /** The same as {@link #describe()}. */
  @Override
  public String toString() {
    return describe();
  }

  /**
   * The same selector in one spelling: each requirement's values sorted without repeats, so that
   * equal selectors are written alike in the project's configuration. Call on a valid selector.
   */
  public LabelSelector canonical() {
    return new LabelSelector(
        matchLabels,
        matchExpressions.stream()
            .map(
                r -> new Requirement(r.key(), r.operator(), List.copyOf(new TreeSet<>(r.values()))))
            .toList());
  }
}

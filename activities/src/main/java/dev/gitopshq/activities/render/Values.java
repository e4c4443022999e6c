package dev.gitopshq.activities.render;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Operations on values trees (JSON-like: {@code Map<String, Object>}, {@code List<Object>},
 * strings, numbers, booleans and null). None of them changes its arguments; results share no
 * mutable map or list with them.
 *
 * <ul>
 *   <li>{@link #deepMerge}: how Helm combines values files ({@code -f a.yaml -f b.yaml}): maps
 *       merge key by key, recursively; a list or scalar in the higher layer replaces what was below
 *       it; an explicit {@code null} in the higher layer drops the lower layers' value and stays in
 *       the result as {@code null}, which Helm reads as "remove this key", so it removes the
 *       chart's own default too.
 *   <li>{@link #mergePatch}: JSON Merge Patch (RFC 7386), used for overlays on manifests: like the
 *       above, but a {@code null} removes the key and never appears in the result.
 *   <li>{@link #substitute}: HQ variables in string values.
 * </ul>
 */
public final class Values {
  /**
   * {@code $${NAME}} (an escaped reference) or {@code ${NAME}}; anything else, such as {@code
   * ${1X}} or {@code ${A:-b}}, is not a reference and is kept as written.
   */
  private static final Pattern REFERENCE =
      Pattern.compile("(\\$?)\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}");

  private Values() {}

  /**
   * Merges layers from lowest to highest precedence (see the class comment). Null layers are
   * skipped.
   */
  @SafeVarargs
  public static Map<String, Object> deepMerge(Map<String, Object>... layers) {
    Map<String, Object> result = new LinkedHashMap<>();
    for (Map<String, Object> layer : layers) {
      if (layer != null) {
        result = mergeInto(result, layer);
      }
    }
    return result;
  }

  private static Map<String, Object> mergeInto(Map<String, Object> lower, Map<String, ?> higher) {
    Map<String, Object> out = new LinkedHashMap<>(lower);
    for (Map.Entry<String, ?> e : higher.entrySet()) {
      Object below = out.get(e.getKey());
      if (e.getValue() instanceof Map<?, ?> higherMap && below instanceof Map<?, ?> lowerMap) {
        out.put(e.getKey(), mergeInto(asMap(lowerMap), asMap(higherMap)));
      } else {
        out.put(e.getKey(), copy(e.getValue()));
      }
    }
    return out;
  }

  /**
   * Applies a JSON Merge Patch (RFC 7386 section 2) to {@code target}.
   *
   * @return the patched document (a new tree)
   */
  public static Object mergePatch(Object target, Object patch) {
    if (!(patch instanceof Map<?, ?> patchMap)) {
      return copy(patch);
    }
    Map<String, Object> out =
        target instanceof Map<?, ?> targetMap ? asMap(copy(targetMap)) : new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : asMap(patchMap).entrySet()) {
      if (e.getValue() == null) {
        out.remove(e.getKey());
      } else {
        out.put(e.getKey(), mergePatch(out.get(e.getKey()), e.getValue()));
      }
    }
    return out;
  }

  /**
   * Replaces {@code ${NAME}} in every string value of {@code tree} (map keys are left alone) by the
   * variable's value, taken literally (a value is not substituted again); {@code $${NAME}} becomes
   * the literal text {@code ${NAME}}. NAME matches {@code [A-Za-z_][A-Za-z0-9_]*}.
   *
   * @param where what the tree is, for the error, e.g. "values of web for tenant acme in
   *     production"
   * @throws UndefinedVariableException naming the variable, {@code where} and the key path
   */
  public static Object substitute(Object tree, Map<String, String> variables, String where) {
    return substitute(tree, variables, where, "", new Budget(where));
  }

  /** {@link #substitute(Object, Map, String)} for a map (the usual root of values). */
  public static Map<String, Object> substitute(
      Map<String, Object> tree, Map<String, String> variables, String where) {
    return asMap(substitute((Object) tree, variables, where, "", new Budget(where)));
  }

  /** The most references one tree may substitute. */
  public static final int MAX_SUBSTITUTIONS = 10_000;

  /** The most characters the substituted strings of one tree may add up to (8 MiB of text). */
  public static final long MAX_SUBSTITUTED_CHARS = 8L * 1024 * 1024;

  /**
   * What one substitution may cost: a few kilobytes of values that reference a long variable many
   * times would otherwise grow into hundreds of megabytes. A breach is a planning error naming the
   * tree (its unit), before the text is built.
   */
  private static final class Budget {
    private final String where;
    private int substitutions;
    private long chars;

    Budget(String where) {
      this.where = where;
    }

    void substituted(int count, long length) {
      substitutions += count;
      chars += length;
      if (substitutions > MAX_SUBSTITUTIONS) {
        throw new PlanException(
            where + " makes more than " + MAX_SUBSTITUTIONS + " variable substitutions");
      }
      if (chars > MAX_SUBSTITUTED_CHARS) {
        throw new PlanException(
            where
                + " grows past "
                + MAX_SUBSTITUTED_CHARS / (1024 * 1024)
                + " MiB of text once variables are substituted");
      }
    }
  }

  private static Object substitute(
      Object node, Map<String, String> variables, String where, String at, Budget budget) {
    if (node instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<String, Object> e : asMap(map).entrySet()) {
        String key = e.getKey();
        out.put(
            key,
            substitute(
                e.getValue(), variables, where, at.isEmpty() ? key : at + "." + key, budget));
      }
      return out;
    }
    if (node instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      for (int i = 0; i < list.size(); i++) {
        out.add(substitute(list.get(i), variables, where, at + "[" + i + "]", budget));
      }
      return out;
    }
    if (node instanceof String text) {
      return substituteText(text, variables, where, at, budget);
    }
    return node;
  }

  private static String substituteText(
      String text, Map<String, String> variables, String where, String at, Budget budget) {
    if (text.indexOf('$') < 0) {
      return text;
    }
    Matcher m = REFERENCE.matcher(text);
    StringBuilder out = new StringBuilder(text.length());
    while (m.find()) {
      String name = m.group(2);
      String replacement;
      if (!m.group(1).isEmpty()) {
        replacement = "${" + name + "}";
      } else {
        replacement = variables.get(name);
        if (replacement == null) {
          throw new UndefinedVariableException(
              name,
              where
                  + " reference ${"
                  + name
                  + "}"
                  + (at.isEmpty() ? "" : " (at " + at + ")")
                  + ", which no HQ variable defines");
        }
      }
      // Counted before the text is appended: a breach stops before it is built.
      budget.substituted(1, Math.max(0, replacement.length() - m.group().length()));
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** A deep copy of a values tree. */
  public static Object copy(Object node) {
    if (node instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<String, Object> e : asMap(map).entrySet()) {
        out.put(e.getKey(), copy(e.getValue()));
      }
      return out;
    }
    if (node instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      for (Object o : list) {
        out.add(copy(o));
      }
      return out;
    }
    return node;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> asMap(Object map) {
    return (Map<String, Object>) map;
  }
}

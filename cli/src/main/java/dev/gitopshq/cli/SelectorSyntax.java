package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * kubectl's label selector syntax ({@code tier=production,region in (eu-1,eu-2),!legacy}) read into
 * the hub's JSON form ({@code matchLabels} and {@code matchExpressions}). The hub validates keys
 * and values; this only splits the text. An empty text is the empty selector, which matches every
 * cluster.
 */
final class SelectorSyntax {
  private SelectorSyntax() {}

  /**
   * @throws CliException when a term is none of {@code k=v}, {@code k==v}, {@code k!=v}, {@code k
   *     in (a,b)}, {@code k notin (a,b)}, {@code k}, {@code !k}
   */
  static Map<String, Object> parse(String text) {
    Map<String, String> labels = new LinkedHashMap<>();
    List<Map<String, Object>> expressions = new ArrayList<>();
    for (String term : terms(text)) {
      String t = term.strip();
      if (t.isEmpty()) {
        throw bad(text, "an empty term");
      }
      String[] set = setTerm(t);
      if (set != null) {
        expressions.add(expression(set[0], set[1], values(text, set[2])));
      } else if (t.startsWith("!")) {
        expressions.add(expression(key(text, t.substring(1)), "DoesNotExist", List.of()));
      } else if (t.contains("!=")) {
        int i = t.indexOf("!=");
        expressions.add(
            expression(key(text, t.substring(0, i)), "NotIn", List.of(t.substring(i + 2).strip())));
      } else if (t.contains("=")) {
        int i = t.indexOf('=');
        String value = t.substring(t.startsWith("=", i + 1) ? i + 2 : i + 1).strip();
        labels.put(key(text, t.substring(0, i)), value);
      } else {
        expressions.add(expression(key(text, t), "Exists", List.of()));
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    if (!labels.isEmpty()) {
      out.put("matchLabels", labels);
    }
    if (!expressions.isEmpty()) {
      out.put("matchExpressions", expressions);
    }
    return out;
  }

  /** The selector of an environment as the hub returns it, in kubectl's syntax. */
  static String format(JsonNode selector) {
    return format(selector, "(every cluster)");
  }

  /**
   * A selector as the hub returns it, in kubectl's syntax; {@code everything} for the empty
   * selector, an empty string for none.
   */
  static String format(JsonNode selector, String everything) {
    if (selector == null || selector.isNull() || selector.isMissingNode()) {
      return "";
    }
    List<String> parts = new ArrayList<>();
    selector
        .path("matchLabels")
        .fields()
        .forEachRemaining(e -> parts.add(e.getKey() + "=" + e.getValue().asText()));
    for (JsonNode r : selector.path("matchExpressions")) {
      String key = r.path("key").asText();
      List<String> values = new ArrayList<>();
      r.path("values").forEach(v -> values.add(v.asText()));
      switch (r.path("operator").asText()) {
        case "In" -> parts.add(key + " in (" + String.join(",", values) + ")");
        case "NotIn" -> parts.add(key + " notin (" + String.join(",", values) + ")");
        case "Exists" -> parts.add(key);
        case "DoesNotExist" -> parts.add("!" + key);
        default -> parts.add(key + " " + r.path("operator").asText());
      }
    }
    return parts.isEmpty() ? everything : String.join(",", parts);
  }

  /** Splits on commas outside parentheses. */
  private static List<String> terms(String text) {
    List<String> out = new ArrayList<>();
    if (text.isBlank()) {
      return out;
    }
    int depth = 0;
    StringBuilder cur = new StringBuilder();
    for (char c : text.toCharArray()) {
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      }
      if (c == ',' && depth == 0) {
        out.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    if (depth != 0) {
      throw bad(text, "unbalanced parentheses");
    }
    out.add(cur.toString());
    return out;
  }

  /** {@code key in (...)} or {@code key notin (...)}: key, operator, the text in parentheses. */
  private static String[] setTerm(String t) {
    int open = t.indexOf('(');
    if (open < 0 || !t.endsWith(")")) {
      return null;
    }
    String[] head = t.substring(0, open).strip().split("\\s+");
    if (head.length != 2) {
      return null;
    }
    String op =
        switch (head[1]) {
          case "in" -> "In";
          case "notin" -> "NotIn";
          default -> null;
        };
    return op == null ? null : new String[] {head[0], op, t.substring(open + 1, t.length() - 1)};
  }

  private static List<String> values(String text, String inner) {
    List<String> out = new ArrayList<>();
    for (String v : inner.split(",", -1)) {
      out.add(v.strip());
    }
    if (out.size() == 1 && out.get(0).isEmpty()) {
      throw bad(text, "a set with no values");
    }
    return out;
  }

  private static String key(String text, String k) {
    String key = k.strip();
    if (key.isEmpty() || key.contains(" ")) {
      throw bad(text, "a term without a key");
    }
    return key;
  }

  private static Map<String, Object> expression(String key, String op, List<String> values) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("key", key);
    e.put("operator", op);
    if (!values.isEmpty()) {
      e.put("values", values);
    }
    return e;
  }

  private static CliException bad(String text, String why) {
    return new CliException(
        ExitCode.USAGE,
        "--selector '"
            + text
            + "': "
            + why
            + " (use k=v, k!=v, 'k in (a,b)', 'k notin (a,b)', k or !k, joined by commas)");
  }
}

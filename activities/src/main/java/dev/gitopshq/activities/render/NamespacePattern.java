package dev.gitopshq.activities.render;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An environment's namespace pattern, such as {@code {{ .tenant }}-{{ .environment }}}: literal
 * text and the placeholders {@code {{ .tenant }}}, {@code {{ .environment }}}, {@code {{ .project
 * }}} and {@code {{ .cluster }}} (spaces inside the braces optional). It looks like a Go template
 * but is not one: any other {@code {{ ... }}} is refused, so a pattern cannot call functions or
 * read anything else.
 */
final class NamespacePattern {

  private static final Pattern PLACEHOLDER =
      Pattern.compile("\\{\\{\\s*\\.(tenant|environment|project|cluster)\\s*\\}\\}");
  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private final String pattern;
  private final String environment;
  private final List<Part> parts;

  /** Literal text, or the name of a field when {@code field}. */
  private record Part(boolean field, String text) {}

  private NamespacePattern(String pattern, String environment, List<Part> parts) {
    this.pattern = pattern;
    this.environment = environment;
    this.parts = parts;
  }

  /**
   * Parses a pattern.
   *
   * @throws PlanException naming the environment and what is wrong
   */
  static NamespacePattern parse(String pattern, String environment) {
    if (pattern == null || pattern.isBlank()) {
      throw new PlanException("environment " + environment + " has no namespace pattern");
    }
    List<Part> parts = new ArrayList<>();
    Matcher m = PLACEHOLDER.matcher(pattern);
    int at = 0;
    while (m.find()) {
      parts.add(new Part(false, literal(pattern, pattern.substring(at, m.start()), environment)));
      parts.add(new Part(true, m.group(1)));
      at = m.end();
    }
    parts.add(new Part(false, literal(pattern, pattern.substring(at), environment)));
    return new NamespacePattern(pattern, environment, List.copyOf(parts));
  }

  private static String literal(String pattern, String text, String environment) {
    if (text.contains("{{") || text.contains("}}")) {
      int open = text.indexOf("{{");
      int close = open < 0 ? -1 : text.indexOf("}}", open);
      String bad = open >= 0 && close > open ? text.substring(open, close + 2) : text.trim();
      throw new PlanException(
          "namespace pattern '"
              + pattern
              + "' of environment "
              + environment
              + " contains '"
              + bad
              + "': only {{ .tenant }}, {{ .environment }}, {{ .project }} and {{ .cluster }} may be"
              + " used");
    }
    return text;
  }

  /** Whether the pattern uses {@code {{ .field }}}. */
  boolean uses(String field) {
    return parts.contains(new Part(true, field));
  }

  String pattern() {
    return pattern;
  }

  /**
   * The namespace for these field values.
   *
   * @throws PlanException when the result is not an RFC 1123 label of at most 63 characters
   */
  String apply(Map<String, String> fields) {
    StringBuilder b = new StringBuilder();
    for (Part part : parts) {
      b.append(part.field() ? fields.get(part.text()) : part.text());
    }
    String namespace = b.toString();
    String why = null;
    if (namespace.length() > 63) {
      why = "it is " + namespace.length() + " characters long; a namespace has at most 63";
    } else if (!LABEL.matcher(namespace).matches()) {
      why =
          "a namespace must be an RFC 1123 label: lowercase letters, digits and '-',"
              + " starting and ending with a letter or digit";
    }
    if (why != null) {
      throw new PlanException(
          "namespace pattern '"
              + pattern
              + "' of environment "
              + environment
              + " gives '"
              + namespace
              + "' for tenant "
              + fields.get("tenant")
              + " on cluster "
              + fields.get("cluster")
              + ", which is not a valid namespace: "
              + why);
    }
    return namespace;
  }
}

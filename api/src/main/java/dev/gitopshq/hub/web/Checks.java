package dev.gitopshq.hub.web;

import dev.gitopshq.activities.cluster.LabelSelector;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Collects every problem with a request before answering, so a caller fixes all fields in one round
 * trip. {@link #throwIfInvalid()} raises a 400 naming each field.
 */
public final class Checks {
  /** RFC 1123 DNS label: lowercase alphanumerics and '-', alphanumeric at both ends. */
  public static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private static final int MAX_LABELS = 64;
  private final List<ApiError.FieldError> errors = new ArrayList<>();

  public Checks fail(String field, String reason) {
    errors.add(new ApiError.FieldError(field, reason));
    return this;
  }

  /** A required RFC 1123 label of at most 63 characters. */
  public Checks dnsLabel(String field, String value) {
    if (value == null || value.isEmpty()) {
      return fail(field, "is required");
    }
    if (value.length() > 63) {
      return fail(field, "must be at most 63 characters (got " + value.length() + ")");
    }
    if (!DNS_LABEL.matcher(value).matches()) {
      return fail(
          field,
          "must be an RFC 1123 label: lowercase letters, digits and '-', starting and ending with"
              + " a letter or digit");
    }
    return this;
  }

  /** Optional free text: at most {@code max} characters and no control characters. */
  public Checks text(String field, String value, int max) {
    if (value == null) {
      return this;
    }
    if (value.length() > max) {
      return fail(field, "must be at most " + max + " characters");
    }
    if (value.chars().anyMatch(Character::isISOControl)) {
      return fail(field, "must not contain control characters");
    }
    return this;
  }

  /**
   * Hangul and halfwidth fillers (U+115F, U+1160, U+3164, U+FFA0), the Braille blank (U+2800) and
   * the combining grapheme joiner (U+034F): letters and marks by category, but they print as
   * nothing.
   */
  private static final Set<Integer> FILLERS =
      Set.of(0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F);

  /**
   * Whether a character is invisible or changes how the text around it reads: Unicode's format
   * characters (category Cf: bidi controls such as U+202E and U+061C, zero-width characters, the
   * soft hyphen U+00AD, tags), the line and paragraph separators U+2028 and U+2029 (Zl, Zp), and
   * {@link #FILLERS}. A name with one can look like another name ("Trojan Source").
   */
  static boolean invisible(int codePoint) {
    int type = Character.getType(codePoint);
    return type == Character.FORMAT
        || type == Character.LINE_SEPARATOR
        || type == Character.PARAGRAPH_SEPARATOR
        || FILLERS.contains(codePoint);
  }

  /** A name or display name people read: free text without invisible or direction characters. */
  public Checks displayName(String field, String value, int max, boolean required) {
    if (required && (value == null || value.isBlank())) {
      return fail(field, "is required");
    }
    if (value != null && value.codePoints().anyMatch(Checks::invisible)) {
      return fail(
          field, "must not contain invisible, bidirectional-control or line-separator characters");
    }
    return text(field, value, max);
  }

  /** Required free text. */
  public Checks requiredText(String field, String value, int max) {
    if (value == null || value.isBlank()) {
      return fail(field, "is required");
    }
    return text(field, value, max);
  }

  /**
   * Cluster labels, as Kubernetes validates labels: keys are qualified names (an optional DNS
   * subdomain prefix and '/', then a name of at most 63 characters), values at most 63 characters
   * (or empty); at most 64 pairs.
   */
  public Checks labels(String field, Map<String, String> labels) {
    if (labels == null) {
      return this;
    }
    if (labels.size() > MAX_LABELS) {
      fail(field, "must have at most " + MAX_LABELS + " labels");
    }
    labels.forEach(
        (k, v) -> {
          String why = LabelSelector.keyProblem(k);
          if (why == null) {
            why = LabelSelector.valueProblem(v);
          }
          if (why != null) {
            fail(field + "." + k, why);
          }
        });
    return this;
  }

  /**
   * A label selector (absent is fine) as Kubernetes validates one, each problem named under {@code
   * field} (e.g. {@code selector.matchExpressions[0].operator}); the bounds are {@link
   * LabelSelector#MAX_REQUIREMENTS} and {@link LabelSelector#MAX_VALUES}.
   *
   * @return the selector in its canonical spelling (values sorted, no repeats); as given if it has
   *     problems; null for none
   */
  public LabelSelector selector(String field, LabelSelector selector) {
    if (selector == null) {
      return null;
    }
    List<LabelSelector.Problem> problems = selector.problems(field);
    problems.forEach(p -> fail(p.field(), p.reason()));
    return problems.isEmpty() ? selector.canonical() : selector;
  }

  /** The earliest and latest times the hub stores or filters by (years 1 to 9999). */
  public static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");

  public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

  /**
   * A time a query or a row may hold: PostgreSQL's range is far wider, but a time outside years
   * 1-9999 is a mistake in the request (and beyond PostgreSQL's own range it would be a 500).
   *
   * @throws ApiException 400 naming the field
   */
  public static Instant time(String field, Instant value) {
    if (value != null && (value.isBefore(EARLIEST) || value.isAfter(LATEST))) {
      throw ApiException.invalid(field, "must be a time between the years 1 and 9999");
    }
    return value;
  }

  public boolean ok() {
    return errors.isEmpty();
  }

  public void throwIfInvalid() {
    if (!errors.isEmpty()) {
      throw ApiException.invalid(errors);
    }
  }
}

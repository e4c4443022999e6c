package dev.gitopshq.agent.drift;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Field-level differences between what the desired state makes an object (the result of a
 * server-side-apply dry run, or the desired manifest itself) and the live object, the way Argo CD's
 * server-side diff reports them: metadata the API server manages ({@code managedFields}, {@code
 * resourceVersion}, {@code generation}, {@code uid}, {@code creationTimestamp}) and {@code status}
 * never count. Labels, annotations and a list that only changed its order are {@code cosmetic};
 * everything else (spec, data, rules, images, replicas…) is {@code functional}. A Secret's values
 * are never shown.
 */
public final class DriftDiff {
  public static final String FUNCTIONAL = "functional";
  public static final String COSMETIC = "cosmetic";

  /** How many differences one object reports. */
  public static final int MAX_DIFFERENCES = 100;

  /** The longest value (as JSON) a difference carries. */
  public static final int MAX_VALUE_CHARS = 4096;

  private static final List<String> SERVER_METADATA =
      List.of(
          "managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink");
  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");

  /** One difference: where, what the desired state says, what is live (JSON; "" when absent). */
  public record Difference(String path, String desired, String live, String severity) {}

  private DriftDiff() {}

  /**
   * Compares two whole objects: {@code desired} is what applying the desired state would make the
   * object (the dry run's answer), so every field that differs is drift, including fields the live
   * object has and the desired state removes.
   */
  public static List<Difference> compare(JsonNode desired, JsonNode live) {
    boolean secret = "Secret".equals(desired.path("kind").asText());
    List<Difference> out = new ArrayList<>();
    walk("", strip(desired), strip(live), secret, false, out);
    return out;
  }

  /**
   * Compares only the fields the desired manifest sets (when RBAC forbids the dry run): what the
   * API server defaults or another manager owns is not looked at.
   */
  public static List<Difference> compareSubset(JsonNode desired, JsonNode live) {
    boolean secret = "Secret".equals(desired.path("kind").asText());
    List<Difference> out = new ArrayList<>();
    walk("", strip(desired), strip(live), secret, true, out);
    return out;
  }

  /** A copy without status and the metadata the API server manages. */
  static JsonNode strip(JsonNode o) {
    if (!(o instanceof ObjectNode obj)) {
      return o;
    }
    ObjectNode c = obj.deepCopy();
    c.remove("status");
    if (c.get("metadata") instanceof ObjectNode m) {
      SERVER_METADATA.forEach(m::remove);
      if (m.get("annotations") instanceof ObjectNode a) {
        // kubectl's client-side bookkeeping, not state.
        a.remove("kubectl.kubernetes.io/last-applied-configuration");
        if (a.isEmpty()) {
          m.remove("annotations");
        }
      }
    }
    return c;
  }

  private static void walk(
      String path, JsonNode d, JsonNode l, boolean secret, boolean subset, List<Difference> out) {
    if (out.size() >= MAX_DIFFERENCES || equal(d, l)) {
      return;
    }
    if (d == null && subset) {
      return;
    }
    if (d instanceof ObjectNode dobj && l instanceof ObjectNode lobj) {
      TreeSet<String> keys = new TreeSet<>();
      dobj.fieldNames().forEachRemaining(keys::add);
      if (!subset) {
        lobj.fieldNames().forEachRemaining(keys::add);
      }
      for (String k : keys) {
        walk(child(path, k), dobj.get(k), lobj.get(k), secret, subset, out);
      }
      return;
    }
    if (d instanceof ArrayNode da && l instanceof ArrayNode la) {
      if (!subset && da.size() == la.size() && sameElements(da, la)) {
        add(out, path, d, l, secret, COSMETIC);
        return;
      }
      Map<String, JsonNode> dn = byName(da);
      Map<String, JsonNode> ln = byName(la);
      if (dn != null && ln != null && (subset || dn.keySet().equals(ln.keySet()))) {
        for (Map.Entry<String, JsonNode> e : dn.entrySet()) {
          walk(
              path + "[name=" + e.getKey() + "]",
              e.getValue(),
              ln.get(e.getKey()),
              secret,
              subset,
              out);
        }
        return;
      }
      if (da.size() == la.size()) {
        for (int i = 0; i < da.size(); i++) {
          walk(path + "[" + i + "]", da.get(i), la.get(i), secret, subset, out);
        }
        return;
      }
    }
    add(out, path, d, l, secret, severityOf(path));
  }

  /** Equal values; numbers by value, so 2 and 2.0 are the same. */
  private static boolean equal(JsonNode a, JsonNode b) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.equals(b);
  }

  private static boolean sameElements(ArrayNode a, ArrayNode b) {
    List<String> x = new ArrayList<>();
    List<String> y = new ArrayList<>();
    a.forEach(n -> x.add(n.toString()));
    b.forEach(n -> y.add(n.toString()));
    x.sort(null);
    y.sort(null);
    return x.equals(y);
  }

  /** The elements by their name field, when every element is an object with a unique name. */
  private static Map<String, JsonNode> byName(ArrayNode a) {
    Map<String, JsonNode> m = new LinkedHashMap<>();
    for (Iterator<JsonNode> it = a.elements(); it.hasNext(); ) {
      JsonNode n = it.next();
      if (!n.path("name").isTextual() || m.put(n.get("name").asText(), n) != null) {
        return null;
      }
    }
    return m;
  }

  static String severityOf(String path) {
    return path.startsWith("metadata.labels") || path.startsWith("metadata.annotations")
        ? COSMETIC
        : FUNCTIONAL;
  }

  private static String child(String path, String key) {
    String k = PLAIN_KEY.matcher(key).matches() ? key : "[\"" + key.replace("\"", "\\\"") + "\"]";
    if (path.isEmpty()) {
      return k;
    }
    return k.startsWith("[") ? path + k : path + "." + k;
  }

  private static void add(
      List<Difference> out, String path, JsonNode d, JsonNode l, boolean secret, String severity) {
    boolean hidden = secret && (path.startsWith("data") || path.startsWith("stringData"));
    out.add(new Difference(path, text(d, hidden), text(l, hidden), severity));
  }

  private static String text(JsonNode n, boolean hidden) {
    if (n == null || n.isMissingNode()) {
      return "";
    }
    if (hidden) {
      return "\"(redacted)\"";
    }
    String s = n.toString();
    return s.length() <= MAX_VALUE_CHARS ? s : s.substring(0, MAX_VALUE_CHARS) + "…";
  }
}

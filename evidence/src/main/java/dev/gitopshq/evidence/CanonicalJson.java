package dev.gitopshq.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The canonical form of a JSON value, close to RFC 8785 (JCS): object members sorted by key (UTF-16
 * code units, as Java compares strings), no insignificant whitespace, strings with only the escapes
 * JSON requires ({@code \"}, {@code \\}, {@code \b \f \n \r \t}, other control characters as
 * lower-case {@code \\u00xx}), UTF-8. Integers are written in full; other numbers in their shortest
 * plain decimal form without exponent or trailing zeros ({@code 1.50} is {@code 1.5}, {@code 2.0}
 * is {@code 2}). Two documents that mean the same JSON have the same canonical bytes, so a
 * signature or hash over them does not depend on how the file was pretty-printed.
 */
public final class CanonicalJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private CanonicalJson() {}

  /** The canonical UTF-8 bytes of a JSON value. */
  public static byte[] bytes(JsonNode node) {
    return string(node).getBytes(StandardCharsets.UTF_8);
  }

  /** The canonical text of a JSON value. */
  public static String string(JsonNode node) {
    StringBuilder out = new StringBuilder();
    write(node, out);
    return out.toString();
  }

  /** The canonical text of any value Jackson can turn into JSON (records, maps, lists). */
  public static String string(Object value) {
    return string(JSON.valueToTree(value));
  }

  /**
   * Parses JSON text and returns its canonical bytes.
   *
   * @throws IllegalArgumentException when it is not JSON
   */
  public static byte[] canonicalize(byte[] json) {
    try {
      return bytes(JSON.readTree(json));
    } catch (IOException e) {
      throw new IllegalArgumentException("not valid JSON");
    }
  }

  private static void write(JsonNode n, StringBuilder out) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      out.append("null");
    } else if (n.isObject()) {
      List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
      Iterator<Map.Entry<String, JsonNode>> it = n.fields();
      it.forEachRemaining(fields::add);
      fields.sort(Map.Entry.comparingByKey());
      out.append('{');
      for (int i = 0; i < fields.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        string(fields.get(i).getKey(), out);
        out.append(':');
        write(fields.get(i).getValue(), out);
      }
      out.append('}');
    } else if (n.isArray()) {
      out.append('[');
      for (int i = 0; i < n.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        write(n.get(i), out);
      }
      out.append(']');
    } else if (n.isTextual()) {
      string(n.textValue(), out);
    } else if (n.isBoolean()) {
      out.append(n.booleanValue());
    } else if (n.isIntegralNumber()) {
      out.append(n.bigIntegerValue());
    } else if (n.isNumber()) {
      BigDecimal d = n.decimalValue().stripTrailingZeros();
      out.append(d.scale() < 0 ? d.setScale(0).toPlainString() : d.toPlainString());
    } else {
      throw new IllegalArgumentException("not a JSON value: " + n.getNodeType());
    }
  }

  private static void string(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}

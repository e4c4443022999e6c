package dev.gitopshq.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * How results are printed: an aligned table (the default, plain text without colours or other
 * escape sequences), or the hub's objects as they came, as JSON or YAML ({@code -o json|yaml}).
 */
public final class Output {
  /** The {@code -o} values. */
  public enum Format {
    table,
    json,
    yaml
  }

  /** A table column: its header and how to read its cell from an object. */
  public record Column(String header, Function<JsonNode, String> value) {
    /** A column reading a field by JSON pointer ({@code /actor/name}) or plain name. */
    public static Column of(String header, String field) {
      String pointer = field.startsWith("/") ? field : "/" + field;
      return new Column(header, n -> text(n.at(pointer)));
    }
  }

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final ObjectMapper YAML =
      new ObjectMapper(
          new YAMLFactory()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private final Format format;
  private final PrintWriter out;

  public Output(Format format, PrintWriter out) {
    this.format = format;
    this.out = out;
  }

  public Format format() {
    return format;
  }

  public boolean isTable() {
    return format == Format.table;
  }

  /** Prints {@code value} as it is in JSON or YAML mode; a table of {@code rows} otherwise. */
  public void print(JsonNode value, Iterable<JsonNode> rows, List<Column> columns) {
    if (!isTable()) {
      raw(value);
      return;
    }
    out.print(table(rows, columns));
    out.flush();
  }

  /** Prints one object: as JSON/YAML, or in table mode as {@code FIELD value} lines. */
  public void object(JsonNode value, List<Column> fields) {
    if (!isTable()) {
      raw(value);
      return;
    }
    int w = fields.stream().mapToInt(c -> c.header().length()).max().orElse(0);
    for (Column c : fields) {
      String v = c.value().apply(value);
      if (v.isEmpty()) {
        continue;
      }
      out.println(pad(c.header() + ":", w + 1) + "  " + v);
    }
    out.flush();
  }

  /** The value as JSON or YAML (JSON in table mode). */
  public void raw(JsonNode value) {
    try {
      String s =
          format == Format.yaml ? YAML.writeValueAsString(value) : JSON.writeValueAsString(value);
      out.print(s.endsWith("\n") ? s : s + "\n");
      out.flush();
    } catch (JsonProcessingException e) {
      throw new CliException(ExitCode.ERROR, "cannot print the answer: " + e.getMessage());
    }
  }

  /** Plain text lines, only in table mode (JSON and YAML output stay parseable). */
  public void line(String text) {
    if (isTable()) {
      out.println(text);
      out.flush();
    }
  }

  /** An aligned table: upper-case headers, two spaces between columns, no trailing blanks. */
  public static String table(Iterable<JsonNode> rows, List<Column> columns) {
    List<String[]> cells = new ArrayList<>();
    String[] header = new String[columns.size()];
    for (int i = 0; i < header.length; i++) {
      header[i] = columns.get(i).header().toUpperCase(Locale.ROOT);
    }
    cells.add(header);
    for (JsonNode row : rows) {
      String[] line = new String[columns.size()];
      for (int i = 0; i < line.length; i++) {
        line[i] = oneLine(columns.get(i).value().apply(row));
      }
      cells.add(line);
    }
    int[] width = new int[columns.size()];
    for (String[] line : cells) {
      for (int i = 0; i < line.length; i++) {
        width[i] = Math.max(width[i], line[i].codePointCount(0, line[i].length()));
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] line : cells) {
      StringBuilder l = new StringBuilder();
      for (int i = 0; i < line.length; i++) {
        l.append(i == line.length - 1 ? line[i] : pad(line[i], width[i]) + "  ");
      }
      sb.append(l.toString().stripTrailing()).append('\n');
    }
    return sb.toString();
  }

  private static String pad(String s, int width) {
    int n = width - s.codePointCount(0, s.length());
    return n <= 0 ? s : s + " ".repeat(n);
  }

  /** A cell on one line: control characters (newlines, escape sequences) become spaces. */
  static String oneLine(String s) {
    StringBuilder b = new StringBuilder(s.length());
    s.codePoints().forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? ' ' : c));
    return b.toString();
  }

  /** A node as cell text: scalars as they are, arrays joined with commas, objects as k=v. */
  public static String text(JsonNode n) {
    if (n == null || n.isMissingNode() || n.isNull()) {
      return "";
    }
    if (n.isArray()) {
      List<String> parts = new ArrayList<>();
      n.forEach(e -> parts.add(text(e)));
      return String.join(",", parts);
    }
    if (n.isObject()) {
      List<String> parts = new ArrayList<>();
      n.properties().forEach(e -> parts.add(e.getKey() + "=" + text(e.getValue())));
      return String.join(",", parts);
    }
    return n.asText();
  }
}

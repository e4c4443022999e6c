package dev.gitopshq.activities.render;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.Event;

/**
 * Reading and writing Kubernetes YAML as values trees ({@link Values}), the way {@code kubectl}
 * users expect to read it in Git: block style, keys in the order they were written, quotes only
 * where YAML needs them.
 */
public final class Yaml {
  /** Aliases one document may use: a few for real anchors, never a "billion laughs" bomb. */
  static final int MAX_ALIASES = 50;

  /** How deep collections may nest. */
  static final int MAX_NESTING = 100;

  /** The most code points one text may hold (8 MiB of ASCII). */
  static final int MAX_CODE_POINTS = 8 * 1024 * 1024;

  /**
   * Floats as BigDecimal (so {@code 1.10} stays {@code 1.10}); a duplicate key is an error, as in
   * {@code kubectl apply}. Bounded before anything is expanded: SnakeYAML refuses more than {@link
   * #MAX_ALIASES} aliases to collections, nesting deeper than {@link #MAX_NESTING} and texts over
   * {@link #MAX_CODE_POINTS} code points.
   */
  private static final ObjectReader READER =
      new ObjectMapper(boundedFactory().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION))
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .readerFor(Object.class);

  /**
   * One YAML document as a tree, read with the limits above; for YAML an agent sends, such as an
   * inspected object.
   *
   * @throws java.io.UncheckedIOException when it is not YAML within the limits
   */
  public static JsonNode readTree(String text) {
    try {
      return new ObjectMapper(boundedFactory()).readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A YAML factory with the limits above, for every YAML the hub reads from users. */
  static YAMLFactory boundedFactory() {
    return YAMLFactory.builder()
        // As `new YAMLFactory()` does: an empty document is null, not "" (the builder differs).
        .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
        .loaderOptions(loaderOptions())
        .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
        .build();
  }

  /**
   * What is wrong with the aliases of a YAML text, or null: more than {@code maxAliases} aliases
   * ({@code *name}) is refused before anything expands them (a "billion laughs" document multiplies
   * a few lines into gigabytes in every tool that resolves aliases, such as kustomize). Reads
   * SnakeYAML's events only, bounded like every read ({@link #loaderOptions}).
   */
  public static String aliasProblem(String text, int maxAliases) {
    if (text == null || text.indexOf('*') < 0) {
      // An alias is written *name: text without an asterisk has none (no need to parse it here).
      return null;
    }
    int aliases = 0;
    try {
      for (Event e : new org.yaml.snakeyaml.Yaml(loaderOptions()).parse(new StringReader(text))) {
        if (e instanceof AliasEvent alias && ++aliases > maxAliases) {
          return "uses YAML aliases (*"
              + alias.getAnchor()
              + " at line "
              + (alias.getStartMark().getLine() + 1)
              + ")"
              + (maxAliases == 0
                  ? ", which are not supported here: write the value out"
                  : "; at most " + maxAliases + " are allowed");
        }
      }
    } catch (RuntimeException e) {
      // Not YAML at all: the caller's own parse says why.
      return null;
    }
    return null;
  }

  private static LoaderOptions loaderOptions() {
    LoaderOptions o = new LoaderOptions();
    o.setMaxAliasesForCollections(MAX_ALIASES);
    o.setNestingDepthLimit(MAX_NESTING);
    o.setCodePointLimit(MAX_CODE_POINTS);
    o.setAllowDuplicateKeys(false);
    return o;
  }

  private static final Pattern YAML12_OCTAL = Pattern.compile("[-+]?0o[0-7]+");
  private static final YAMLMapper PLAIN = writer(true);

  /** For the rare document whose plain form would not read back the same (see {@link #write}). */
  private static final YAMLMapper QUOTED = writer(false);

  private static YAMLMapper writer(boolean minimizeQuotes) {
    YAMLMapper.Builder b =
        YAMLMapper.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE);
    if (minimizeQuotes) {
      b.enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS);
    }
    return b.build();
  }

  private Yaml() {}

  /**
   * The documents of a multi-document YAML text, empty ones (only comments or nothing) left out.
   *
   * @throws JsonProcessingException with the parser's reason and position
   */
  public static List<Object> readAll(String text) throws JsonProcessingException {
    String aliases = aliasProblem(text, 0);
    if (aliases != null) {
      // Jackson reads an alias as its anchor's name, not its value: refuse it rather than
      // render something else than the author wrote.
      throw new JsonParseException((JsonParser) null, aliases);
    }
    List<Object> docs = new ArrayList<>();
    try (MappingIterator<Object> it = READER.readValues(text)) {
      while (it.hasNextValue()) {
        Object doc = it.nextValue();
        if (doc != null) {
          docs.add(doc);
        }
      }
    } catch (JsonProcessingException e) {
      throw e;
    } catch (RuntimeException e) {
      // MappingIterator wraps parse errors in RuntimeJsonMappingException.
      if (e.getCause() instanceof JsonProcessingException cause) {
        throw cause;
      }
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return docs;
  }

  /**
   * One document as YAML text (no {@code ---}). Plain scalars where safe. The plain form is read
   * back with SnakeYAML, a YAML 1.1 reader like the go-yaml that Kubernetes tools use; should it
   * not give the same tree (a string such a reader would take for a number, a boolean like {@code
   * on}, a date or null), every string is quoted instead.
   */
  static String write(Object doc) {
    try {
      String plain = PLAIN.writeValueAsString(doc);
      Object back;
      try {
        back = new org.yaml.snakeyaml.Yaml(new SafeConstructor(new LoaderOptions())).load(plain);
      } catch (RuntimeException e) {
        back = e;
      }
      if (Objects.equals(normalize(back), normalize(doc)) && !hasYaml12Octal(doc)) {
        return plain;
      }
      return QUOTED.writeValueAsString(doc);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write YAML", e);
    }
  }

  /**
   * Whether a string looks like a YAML 1.2 octal number ({@code 0o17}): a YAML 1.1 reader keeps it
   * a string, but kustomize's YAML 1.2 reader would take it for a number, and Jackson leaves it
   * unquoted.
   */
  private static boolean hasYaml12Octal(Object node) {
    if (node instanceof Map<?, ?> map) {
      return map.values().stream().anyMatch(Yaml::hasYaml12Octal);
    }
    if (node instanceof List<?> list) {
      return list.stream().anyMatch(Yaml::hasYaml12Octal);
    }
    return node instanceof String text && YAML12_OCTAL.matcher(text).matches();
  }

  /** Documents separated by {@code ---}. */
  static String writeAll(List<Object> docs) {
    StringBuilder b = new StringBuilder();
    for (Object doc : docs) {
      if (!b.isEmpty()) {
        b.append("---\n");
      }
      b.append(write(doc));
    }
    return b.toString();
  }

  /** Numbers compared by value, so an Integer written and read back as BigInteger is equal. */
  private static Object normalize(Object node) {
    if (node instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(k, normalize(v)));
      return out;
    }
    if (node instanceof List<?> list) {
      return list.stream().map(Yaml::normalize).toList();
    }
    if (node instanceof Number n) {
      boolean floating = n instanceof BigDecimal || n instanceof Double || n instanceof Float;
      if (n instanceof Double d && !Double.isFinite(d)
          || n instanceof Float f && !Float.isFinite(f)) {
        return n.doubleValue() + "f";
      }
      return new BigDecimal(n.toString()).stripTrailingZeros().toPlainString()
          + (floating ? "f" : "i");
    }
    return node;
  }
}

package dev.gitopshq.activities.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No inline fully-qualified type names in the production sources of any module: a type is imported
 * and then named by its simple name, so a file's imports list everything it depends on. A source
 * check, not a bytecode one (the bytecode has only full names). Comments, string literals and
 * {@code import}/{@code package} lines do not count. Where two types of one file share a simple
 * name, one of them keeps its full name: {@link #ALLOWED} lists each such use with its reason.
 */
class InlineNamesTest {
  /** A qualified type name: lower-case package segments, then a capitalised type. */
  private static final Pattern QUALIFIED =
      Pattern.compile(
          "(?<![\\w.$])(?:java|javax|jakarta|org|io|com|dev)(?:\\.[a-z0-9_]+)+\\.[A-Z]\\w*");

  /**
   * The full names that stay, as {@code <path from the repository root>:<name>}, each with why: two
   * types of the file share the simple name.
   */
  static final Map<String, String> ALLOWED =
      Map.of(
          "activities/src/main/java/dev/gitopshq/activities/render/Yaml.java:org.yaml.snakeyaml.Yaml",
          "the file declares its own Yaml",
          "api/src/main/java/dev/gitopshq/hub/delivery/image/ImageUpdateController.java:"
              + "io.swagger.v3.oas.annotations.parameters.RequestBody",
          "Spring's RequestBody is imported too",
          "api/src/main/java/dev/gitopshq/hub/drift/DriftRunner.java:"
              + "dev.gitopshq.activities.drift.DesiredObject",
          "the agent protocol's DesiredObject is imported too",
          "api/src/main/java/dev/gitopshq/hub/temporal/TemporalConfig.java:com.uber.m3.util.Duration",
          "java.time.Duration is imported too");

  @Test
  void noInlineFullyQualifiedNamesInProductionSources() throws IOException {
    Path root = repositoryRoot();
    List<String> found = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path main :
          modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
        try (Stream<Path> files = Files.walk(main)) {
          for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
            found.addAll(
                inlineNames(
                    root.relativize(f).toString(), Files.readString(f, StandardCharsets.UTF_8)));
          }
        }
      }
    }
    assertThat(found)
        .as("inline fully-qualified names (import the type, or allow-list a clash with a reason)")
        .isEmpty();
  }

  @Test
  void theCheckSeesCodeButNotCommentsStringsOrImports() {
    String source =
        """
        package dev.gitopshq.x;

        import java.util.List;

        /** See {@link java.util.Map} and java.util.Set. */
        class X {
          // java.util.Optional in a comment
          String s = "java.util.Deque in a string";
          String t = \"""
              java.util.Queue in a text block
              \""";
          char c = '"';
          java.util.Map<String, String> m = new java.util.HashMap<>(); /* java.util.Stack */
          @org.junit.jupiter.api.Test void test() {}
          Object o = config.org.name.Length;
        }
        """;
    assertThat(inlineNames("X.java", source))
        .containsExactly(
            "X.java:13: java.util.Map",
            "X.java:13: java.util.HashMap",
            "X.java:14: org.junit.jupiter.api.Test");
  }

  /** The inline names of one source file, as {@code path:line: name}, less the allowed ones. */
  static List<String> inlineNames(String path, String source) {
    List<String> out = new ArrayList<>();
    String[] lines = code(source).split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.startsWith("import ") || line.startsWith("package ")) {
        continue;
      }
      Matcher m = QUALIFIED.matcher(lines[i]);
      while (m.find()) {
        if (!ALLOWED.containsKey(path + ":" + m.group())) {
          out.add(path + ":" + (i + 1) + ": " + m.group());
        }
      }
    }
    return out;
  }

  /** The source with comments, string and character literals blanked; line breaks kept. */
  static String code(String s) {
    StringBuilder out = new StringBuilder(s.length());
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (s.startsWith("//", i)) {
        while (i < s.length() && s.charAt(i) != '\n') {
          out.append(' ');
          i++;
        }
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        end = end < 0 ? s.length() : end + 2;
        blank(s, i, end, out);
        i = end;
      } else if (s.startsWith("\"\"\"", i)) {
        int end = i + 3;
        while (end < s.length() && !s.startsWith("\"\"\"", end)) {
          end += s.charAt(end) == '\\' ? 2 : 1;
        }
        end = Math.min(s.length(), end + 3);
        blank(s, i, end, out);
        i = end;
      } else if (c == '"' || c == '\'') {
        int end = i + 1;
        while (end < s.length() && s.charAt(end) != c && s.charAt(end) != '\n') {
          end += s.charAt(end) == '\\' ? 2 : 1;
        }
        end = Math.min(s.length(), end + 1);
        blank(s, i, end, out);
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static void blank(String s, int from, int to, StringBuilder out) {
    for (int j = from; j < to; j++) {
      out.append(s.charAt(j) == '\n' ? '\n' : ' ');
    }
  }

  /** The repository root: the parent of this module's directory, where the modules are. */
  private static Path repositoryRoot() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    assertThat(Files.readString(root.resolve("pom.xml"))).contains("<module>activities</module>");
    return root;
  }
}

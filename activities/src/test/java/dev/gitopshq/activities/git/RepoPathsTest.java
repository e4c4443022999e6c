package dev.gitopshq.activities.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The rule for user paths: nothing may name a place outside the repository or inside .git. */
class RepoPathsTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "..",
        "a/../../b",
        "a/..",
        "../a",
        "/etc/passwd",
        "/",
        "C:/x",
        "c:x",
        "a\\b",
        "..\\..\\windows",
        "a//b",
        "./a",
        "a/./b",
        ".",
        ".git/config",
        ".git",
        "a/.GIT/x",
        "a/.Git",
        "a/b/",
        "a\nb",
        "a\u0000b",
        "a\tb",
        "a\u007fb",
        "",
        // Names Windows and macOS open as ".git" although they are spelled differently.
        ".git./config",
        ".git /config",
        "GIT~1/config",
        ".g\u200cit/config",
        "a/.git\ufeff/hooks",
        // Git's own verify_path cases: NTFS streams, other short names, files Git reads from
        // the tree.
        ".git::$INDEX_ALLOCATION/config",
        ".git:stream",
        "GIT~2/config",
        "a/git~10/x",
        ".gitmodules",
        "a/.GitModules",
        ".gitmodules ./x",
        "GITMOD~1",
        "gi7eba~9",
        ".gitattributes",
        "sub/.gitattributes.",
        "gi250a~1",
        "a/b:c"
      })
  void refusesPathsThatCouldEscapeOrTouchGitMetadata(String path) {
    assertThat(RepoPaths.problem(path)).isNotNull();
    assertThatThrownBy(() -> RepoPaths.requireSafe(path))
        .isInstanceOf(UnsafePathException.class)
        .satisfies(e -> assertThat(((UnsafePathException) e).path()).isEqualTo(path));
  }

  @Test
  void refusesNullAndOverlongPaths() {
    assertThat(RepoPaths.problem(null)).isEqualTo("must not be empty");
    assertThat(RepoPaths.problem("a/".repeat(600) + "b")).contains("at most");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a",
        "deployment.yaml",
        "rendered/production/eu-1/acme/web/deployment-web.yaml",
        "config/values/web.yaml",
        "a/b/c/d/e/f.txt",
        ".gitignore",
        ".github/workflows/ci.yaml",
        "..a",
        "a..b/c...d",
        "templates/_helpers.tpl",
        "naïve/ünïcode.yaml"
      })
  void acceptsNormalNestedPaths(String path) {
    assertThat(RepoPaths.problem(path)).isNull();
    assertThat(RepoPaths.requireSafe(path)).isEqualTo(path);
  }

  @Test
  void theRefusalNamesThePathPrintablyAndTheReason() {
    assertThatThrownBy(() -> RepoPaths.requireSafe("a/../../b"))
        .hasMessageContaining("a/../../b")
        .hasMessageContaining("'..'");
    assertThatThrownBy(() -> RepoPaths.requireSafe("a\nb"))
        .hasMessageContaining("a\\x0ab")
        .hasMessageContaining("control characters");
  }
}

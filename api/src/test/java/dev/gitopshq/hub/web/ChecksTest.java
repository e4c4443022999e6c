package dev.gitopshq.hub.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Display names cannot hide characters that make them read as something else. */
class ChecksTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "prod\u202e-ue", // right-to-left override
        "ops\u061c", // Arabic letter mark
        "ad\u00admin", // soft hyphen
        "admin\u200b", // zero-width space
        "a\u2028b", // line separator
        "a\u2029b", // paragraph separator
        "\u3164", // Hangul filler
        "a\u115fb", // Hangul choseong filler
        "a\uffa0b", // halfwidth Hangul filler
        "a\u2800b", // Braille blank
        "ops\udb40\udc41" // tag latin capital A
      })
  void refusesInvisibleAndDirectionCharacters(String name) {
    assertThatThrownBy(
            () -> new Checks().displayName("displayName", name, 64, true).throwIfInvalid())
        .isInstanceOf(ApiException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"Production EU", "Zoë Ångström", "東京クラスター", "עברית", "ops 🚀"})
  void acceptsNamesInAnyScript(String name) {
    new Checks().displayName("displayName", name, 64, true).throwIfInvalid();
    assertThat(name.codePoints().noneMatch(Checks::invisible)).isTrue();
  }
}

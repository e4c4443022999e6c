package dev.gitopshq.activities.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import org.junit.jupiter.api.Test;

/** YAML from users is bounded before it is expanded: no alias bomb, no unbounded nesting. */
class YamlLimitsTest {

  /** Nine levels of ten aliases each: a billion strings once expanded ("billion laughs"). */
  static String aliasBomb() {
    StringBuilder b =
        new StringBuilder(
            "a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (int i = 1; i <= 9; i++) {
      b.append('a').append(i).append(": &a").append(i).append(" [");
      for (int j = 0; j < 10; j++) {
        b.append(j == 0 ? "" : ",").append("*a").append(i - 1);
      }
      b.append("]\n");
    }
    return b.toString();
  }

  @Test
  void anAliasBombIsRefusedBeforeAnythingExpandsIt() {
    assertThat(Yaml.aliasProblem(aliasBomb(), 50))
        .isEqualTo("uses YAML aliases (*a5 at line 7); at most 50 are allowed");
    assertThatThrownBy(() -> Yaml.readAll(aliasBomb()))
        .isInstanceOf(JsonProcessingException.class)
        .hasMessageContaining("uses YAML aliases (*a0 at line 2), which are not supported here");
  }

  @Test
  void aFewAliasesAreFineWhereAToolResolvesThem() {
    String yaml = "base: &base {image: web, port: 80}\nweb: *base\napi: *base\n";
    assertThat(Yaml.aliasProblem(yaml, 50)).isNull();
    assertThat(Yaml.aliasProblem("plain: text\n", 0)).isNull();
  }

  @Test
  void nestingDeeperThanTheLimitIsRefused() {
    String deep = "[".repeat(Yaml.MAX_NESTING + 5) + "]".repeat(Yaml.MAX_NESTING + 5);
    assertThatThrownBy(() -> Yaml.readAll(deep)).isInstanceOf(JsonProcessingException.class);
  }
}

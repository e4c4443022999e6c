package dev.gitopshq.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.cluster.LabelSelector.Problem;
import dev.gitopshq.activities.cluster.LabelSelector.Requirement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorTest {
  static final Map<String, String> PROD_EU = Map.of("tier", "production", "region", "eu-1");
  static final Map<String, String> STAGING = Map.of("tier", "staging");
  static final Map<String, String> NONE = Map.of();

  static LabelSelector expr(String key, String op, String... values) {
    return new LabelSelector(null, List.of(new Requirement(key, op, List.of(values))));
  }

  @Test
  void anEmptySelectorMatchesEveryCluster() {
    LabelSelector empty = new LabelSelector(null, null);
    assertThat(empty.selectsEverything()).isTrue();
    assertThat(empty.matches(PROD_EU)).isTrue();
    assertThat(empty.matches(NONE)).isTrue();
    assertThat(empty.problems("s")).isEmpty();
    assertThat(empty).hasToString("(every cluster)");
  }

  @Test
  void matchLabelsNeedEveryPairWithTheSameValue() {
    LabelSelector s = new LabelSelector(Map.of("tier", "production", "region", "eu-1"), null);
    assertThat(s.matches(PROD_EU)).isTrue();
    assertThat(s.matches(Map.of("tier", "production"))).isFalse();
    assertThat(s.matches(Map.of("tier", "production", "region", "us-1"))).isFalse();
    assertThat(s).hasToString("region=eu-1,tier=production");
  }

  @Test
  void inMatchesOnlyClustersWithTheLabelSetToOneOfTheValues() {
    LabelSelector s = expr("tier", "In", "production", "staging");
    assertThat(s.matches(PROD_EU)).isTrue();
    assertThat(s.matches(STAGING)).isTrue();
    assertThat(s.matches(Map.of("tier", "dev"))).isFalse();
    assertThat(s.matches(NONE)).isFalse();
  }

  @Test
  void notInMatchesClustersWithoutTheLabelOrWithAnotherValue() {
    LabelSelector s = expr("tier", "NotIn", "production");
    assertThat(s.matches(PROD_EU)).isFalse();
    assertThat(s.matches(STAGING)).isTrue();
    assertThat(s.matches(NONE)).isTrue();
  }

  @Test
  void existsAndDoesNotExistLookOnlyAtTheKey() {
    assertThat(expr("region", "Exists").matches(PROD_EU)).isTrue();
    assertThat(expr("region", "Exists").matches(STAGING)).isFalse();
    assertThat(expr("region", "DoesNotExist").matches(PROD_EU)).isFalse();
    assertThat(expr("region", "DoesNotExist").matches(STAGING)).isTrue();
    assertThat(expr("region", "Exists").matches(Map.of("region", ""))).isTrue();
  }

  @Test
  void requirementsAreAnded() {
    LabelSelector s =
        new LabelSelector(
            Map.of("tier", "production"),
            List.of(
                new Requirement("region", "In", List.of("eu-1", "eu-2")),
                new Requirement("legacy", "DoesNotExist", null)));
    assertThat(s.matches(PROD_EU)).isTrue();
    assertThat(s.matches(Map.of("tier", "production", "region", "eu-1", "legacy", "yes")))
        .isFalse();
    assertThat(s.matches(Map.of("tier", "staging", "region", "eu-1"))).isFalse();
    assertThat(s).hasToString("tier=production,region in (eu-1,eu-2),!legacy");
  }

  @Test
  void validKeysMayHaveADnsSubdomainPrefix() {
    assertThat(LabelSelector.keyProblem("gitopshq.io/tier")).isNull();
    assertThat(LabelSelector.keyProblem("app.kubernetes.io/name")).isNull();
    assertThat(LabelSelector.keyProblem("a_b.c-d")).isNull();
    assertThat(LabelSelector.keyProblem("Tier")).isNull();
    assertThat(LabelSelector.keyProblem("")).contains("required");
    assertThat(LabelSelector.keyProblem("/tier")).contains("prefix");
    assertThat(LabelSelector.keyProblem("Example.com/tier")).contains("prefix");
    assertThat(LabelSelector.keyProblem("a/b/c")).contains("prefix");
    assertThat(LabelSelector.keyProblem("example.com/")).contains("name");
    assertThat(LabelSelector.keyProblem("-tier")).contains("name");
    assertThat(LabelSelector.keyProblem("x".repeat(64))).contains("name");
    assertThat(LabelSelector.keyProblem("a".repeat(254) + "/x")).contains("prefix");
  }

  @Test
  void valuesMayBeEmptyButOtherwiseFollowTheNameRules() {
    assertThat(LabelSelector.valueProblem("")).isNull();
    assertThat(LabelSelector.valueProblem("eu-west_1.a")).isNull();
    assertThat(LabelSelector.valueProblem("eu west")).isNotNull();
    assertThat(LabelSelector.valueProblem("a".repeat(64))).isNotNull();
    assertThat(LabelSelector.valueProblem("-a")).isNotNull();
  }

  @Test
  void problemsNameTheField() {
    Map<String, String> labels = new HashMap<>();
    labels.put("bad key", "x");
    labels.put("ok", "bad value");
    List<String> values = new ArrayList<>(Arrays.asList("a", null));
    LabelSelector s =
        new LabelSelector(
            labels,
            Arrays.asList(
                new Requirement("tier", "Gt", List.of("1")),
                new Requirement("tier", "In", List.of()),
                new Requirement("tier", "Exists", List.of("x")),
                null,
                new Requirement("tier", "NotIn", values)));
    assertThat(s.problems("clusterSelector").stream().map(Problem::field))
        .containsExactlyInAnyOrder(
            "clusterSelector.matchLabels.bad key",
            "clusterSelector.matchLabels.ok",
            "clusterSelector.matchExpressions[0].operator",
            "clusterSelector.matchExpressions[1].values",
            "clusterSelector.matchExpressions[2].values",
            "clusterSelector.matchExpressions[3]",
            "clusterSelector.matchExpressions[4].values");
    assertThat(s.problems("clusterSelector").get(2).reason()).contains("In, NotIn, Exists");
  }

  @Test
  void theSizeIsBounded() {
    Map<String, String> many = new HashMap<>();
    for (int i = 0; i <= LabelSelector.MAX_REQUIREMENTS; i++) {
      many.put("k" + i, "v");
    }
    assertThat(new LabelSelector(many, null).problems("s"))
        .extracting(Problem::field)
        .containsExactly("s");
    List<String> values = new ArrayList<>();
    for (int i = 0; i <= LabelSelector.MAX_VALUES; i++) {
      values.add("v" + i);
    }
    assertThat(expr("k", "In", values.toArray(String[]::new)).problems("s"))
        .extracting(Problem::field)
        .containsExactly("s.matchExpressions[0].values");
  }

  @Test
  void theCanonicalFormSortsValuesAndDropsRepeats() {
    assertThat(expr("k", "In", "b", "a", "b").canonical()).isEqualTo(expr("k", "In", "a", "b"));
  }
}

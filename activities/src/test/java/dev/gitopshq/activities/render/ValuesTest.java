package dev.gitopshq.activities.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ValuesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Object json(String text) throws Exception {
    return JSON.readValue(text, Object.class);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(String text) throws Exception {
    return (Map<String, Object>) json(text);
  }

  /** RFC 7386 Appendix A, every row. */
  @ParameterizedTest(name = "{0} + {1} = {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {"a":"b"}               | {"a":"c"}                    | {"a":"c"}
          {"a":"b"}               | {"b":"c"}                    | {"a":"b","b":"c"}
          {"a":"b"}               | {"a":null}                   | {}
          {"a":"b","b":"c"}       | {"a":null}                   | {"b":"c"}
          {"a":["b"]}             | {"a":"c"}                    | {"a":"c"}
          {"a":"c"}               | {"a":["b"]}                  | {"a":["b"]}
          {"a":{"b":"c"}}         | {"a":{"b":"d","c":null}}     | {"a":{"b":"d"}}
          {"a":[{"b":"c"}]}       | {"a":[1]}                    | {"a":[1]}
          ["a","b"]               | ["c","d"]                    | ["c","d"]
          {"a":"b"}               | ["c"]                        | ["c"]
          {"a":"foo"}             | null                         | null
          {"a":"foo"}             | "bar"                        | "bar"
          {"e":null}              | {"a":1}                      | {"e":null,"a":1}
          [1,2]                   | {"a":"b","c":null}           | {"a":"b"}
          {}                      | {"a":{"bb":{"ccc":null}}}    | {"a":{"bb":{}}}
          """)
  void mergePatchFollowsRfc7386AppendixA(String original, String patch, String result)
      throws Exception {
    assertThat(Values.mergePatch(json(original), json(patch))).isEqualTo(json(result));
  }

  @Test
  void mergePatchLeavesItsArgumentsAlone() throws Exception {
    Map<String, Object> target = map("{\"a\":{\"b\":\"c\",\"d\":[1]}}");
    Map<String, Object> patch = map("{\"a\":{\"b\":null,\"e\":{\"f\":1}}}");

    Object patched = Values.mergePatch(target, patch);
    Values.asMap(Values.asMap(patched).get("a")).put("x", 1);

    assertThat(target).isEqualTo(map("{\"a\":{\"b\":\"c\",\"d\":[1]}}"));
    assertThat(patch).isEqualTo(map("{\"a\":{\"b\":null,\"e\":{\"f\":1}}}"));
  }

  @Test
  void deepMergeMergesMapsAndReplacesListsAndScalars() throws Exception {
    Map<String, Object> workload =
        map(
            """
        {"image":{"repository":"web","tag":"1.0"},"args":["--a","--b"],"replicaCount":1,
         "env":{"LOG":"info","MODE":"x"}}""");
    Map<String, Object> tenant =
        map(
            """
        {"image":{"tag":"1.1"},"args":["--c"],"env":{"MODE":"y"}}""");
    Map<String, Object> cluster =
        map(
            """
        {"replicaCount":3,"env":"flat"}""");

    assertThat(Values.deepMerge(workload, tenant, cluster))
        .isEqualTo(
            map(
                """
            {"image":{"repository":"web","tag":"1.1"},"args":["--c"],"replicaCount":3,"env":"flat"}"""));
  }

  @Test
  void deepMergeKeepsAnExplicitNullSoHelmRemovesTheKey() throws Exception {
    Map<String, Object> merged =
        Values.deepMerge(
            map("{\"resources\":{\"limits\":{\"memory\":\"1Gi\"}},\"keep\":1}"),
            map("{\"resources\":{\"limits\":null}}"));

    assertThat(merged).isEqualTo(map("{\"resources\":{\"limits\":null},\"keep\":1}"));
    // A higher layer may set it again.
    assertThat(Values.deepMerge(merged, map("{\"resources\":{\"limits\":{\"cpu\":1}}}")))
        .isEqualTo(map("{\"resources\":{\"limits\":{\"cpu\":1}},\"keep\":1}"));
  }

  @Test
  void deepMergeSharesNothingWithItsLayers() throws Exception {
    Map<String, Object> low = map("{\"a\":{\"b\":[1]}}");
    Map<String, Object> merged = Values.deepMerge(low, null, new LinkedHashMap<>());

    Values.asMap(merged.get("a")).put("c", 2);

    assertThat(low).isEqualTo(map("{\"a\":{\"b\":[1]}}"));
  }

  @Test
  void substitutesVariablesInStringValuesButNotKeys() throws Exception {
    Map<String, Object> values =
        map(
            """
        {"${HOST}":"${HOST}","db":{"url":"postgres://${HOST}:${PORT}/app","hosts":["${HOST}",5,true,null]},
         "n":3}""");

    Object out = Values.substitute(values, Map.of("HOST", "db.internal", "PORT", "5432"), "values");

    assertThat(out)
        .isEqualTo(
            map(
                """
        {"${HOST}":"db.internal","db":{"url":"postgres://db.internal:5432/app","hosts":["db.internal",5,true,null]},
         "n":3}"""));
  }

  @Test
  void doubleDollarEscapesAReference() {
    Object out =
        Values.substitute(
            List.of(
                "$${HOST}", "a $${UNDEFINED} b", "$$${HOST}", "${A:-x} $HOST ${1X} $${} ${HOST}"),
            Map.of("HOST", "h"),
            "values");

    assertThat(out)
        .isEqualTo(
            List.of("${HOST}", "a ${UNDEFINED} b", "$${HOST}", "${A:-x} $HOST ${1X} $${} h"));
  }

  @Test
  void aVariableValueIsTakenLiterally() {
    Object out = Values.substitute("x=${A}", Map.of("A", "${B} $1 \\"), "values");

    assertThat(out).isEqualTo("x=${B} $1 \\");
  }

  @Test
  void anUndefinedVariableNamesTheVariableAndWhereItWasUsed() throws Exception {
    Map<String, Object> values = map("{\"database\":{\"hosts\":[\"a\",\"${DB_HOST}\"]}}");

    assertThatThrownBy(
            () ->
                Values.substitute(
                    values, Map.of("OTHER", "x"), "values of web for tenant acme in production"))
        .isInstanceOf(UndefinedVariableException.class)
        .hasMessage(
            "values of web for tenant acme in production reference ${DB_HOST}"
                + " (at database.hosts[1]), which no HQ variable defines")
        .extracting(e -> ((UndefinedVariableException) e).variable())
        .isEqualTo("DB_HOST");
  }

  @Test
  void substitutionIsBoundedInGrowthAndCountNamingTheTree() {
    // 6 KB of values referencing a 1 MiB variable: 64 MiB once substituted.
    Map<String, Object> values = new java.util.LinkedHashMap<>();
    for (int i = 0; i < 64; i++) {
      values.put("k" + i, "${BIG}");
    }
    Map<String, String> big = Map.of("BIG", "x".repeat(1024 * 1024));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> Values.substitute(values, big, "values of web for tenant acme in production"))
        .isInstanceOf(PlanException.class)
        .hasMessage(
            "values of web for tenant acme in production grows past 8 MiB of text once variables"
                + " are substituted");

    java.util.List<Object> many = new java.util.ArrayList<>();
    for (int i = 0; i <= Values.MAX_SUBSTITUTIONS; i++) {
      many.add("${A}");
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> Values.substitute(many, Map.of("A", "a"), "bundle shop for tenant acme"))
        .isInstanceOf(PlanException.class)
        .hasMessage("bundle shop for tenant acme makes more than 10000 variable substitutions");

    // Within the bounds, nothing changes.
    org.assertj.core.api.Assertions.assertThat(
            Values.substitute(
                Map.<String, Object>of("host", "${A}.example"), Map.of("A", "shop"), "x"))
        .isEqualTo(Map.of("host", "shop.example"));
  }
}

package dev.gitopshq.activities.approvalpolicy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.approvalpolicy.Precedence.Target;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.cluster.LabelSelector.Requirement;
import dev.gitopshq.activities.delivery.DeliveryJson;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PrecedenceTest {
  static final UUID ORG = UUID.randomUUID();

  static ApprovalPolicyRow policy(String name, List<String> clusters, LabelSelector selector) {
    return stored(name, clusters, selector == null ? null : DeliveryJson.write(selector));
  }

  /** A policy as stored, its selector as the JSON text of its row. */
  static ApprovalPolicyRow stored(String name, List<String> clusters, String selectorJson) {
    return new ApprovalPolicyRow(
        UUID.randomUUID(),
        ORG,
        name,
        "",
        List.of("scale"),
        List.of(),
        1,
        List.of("admin"),
        List.of(),
        false,
        List.of("admin"),
        clusters,
        selectorJson,
        "t",
        Instant.EPOCH,
        "t",
        Instant.EPOCH);
  }

  static LabelSelector labels(Map<String, String> m) {
    return new LabelSelector(m, List.of());
  }

  static final Target PROD_EU = new Target("prod-eu", Map.of("tier", "production", "region", "eu"));

  @Test
  void aPolicyNamingTheClusterBeatsEveryMatchingSelector() {
    var bySelector =
        policy("prod", List.of(), labels(Map.of("tier", "production", "region", "eu")));
    var byName = policy("prod-eu-only", List.of("prod-eu"), null);
    PolicyInForce f = Precedence.resolve(List.of(bySelector, byName), PROD_EU).orElseThrow();
    assertThat(f.policy().name()).isEqualTo("prod-eu-only");
    assertThat(f.attachedBy()).isEqualTo("name");
    assertThat(f.reason()).contains("attached to the cluster by name");
  }

  @Test
  void theSelectorWithMoreRequirementsWinsAndTheEmptySelectorIsTheDefault() {
    var everything = policy("default", List.of(), labels(Map.of()));
    var production = policy("production", List.of(), labels(Map.of("tier", "production")));
    var euProduction =
        policy(
            "eu-production",
            List.of(),
            new LabelSelector(
                Map.of("tier", "production"),
                List.of(new Requirement("region", "In", List.of("eu", "uk")))));
    var all = List.of(everything, production, euProduction);

    PolicyInForce f = Precedence.resolve(all, PROD_EU).orElseThrow();
    assertThat(f.policy().name()).isEqualTo("eu-production");
    assertThat(f.selector()).isEqualTo("tier=production,region in (eu,uk)");
    assertThat(f.tiedWith()).isEmpty();

    Target usProd = new Target("prod-us", Map.of("tier", "production", "region", "us"));
    assertThat(Precedence.resolve(all, usProd).orElseThrow().policy().name())
        .isEqualTo("production");
    Target dev = new Target("dev", Map.of());
    assertThat(Precedence.resolve(all, dev).orElseThrow().policy().name()).isEqualTo("default");
    assertThat(Precedence.resolve(List.of(production), dev)).isEmpty();
  }

  @Test
  void expressionsFollowKubernetesSemantics() {
    Map<String, String> l = Map.of("tier", "production");
    assertThat(sel("tier", "In", "production").matches(l)).isTrue();
    assertThat(sel("tier", "NotIn", "production").matches(l)).isFalse();
    assertThat(sel("region", "NotIn", "eu").matches(l)).isTrue(); // absent key: NotIn holds
    assertThat(sel("tier", "Exists").matches(l)).isTrue();
    assertThat(sel("region", "Exists").matches(l)).isFalse();
    assertThat(sel("region", "DoesNotExist").matches(l)).isTrue();
    assertThat(labels(Map.of("tier", "staging")).matches(l)).isFalse();
  }

  static LabelSelector sel(String key, String op, String... values) {
    return new LabelSelector(Map.of(), List.of(new Requirement(key, op, List.of(values))));
  }

  @Test
  void equallySpecificSelectorsMatchingACurrentClusterAreAConflictNamingBoth() {
    var production = policy("production", List.of(), labels(Map.of("tier", "production")));
    var eu = policy("eu", List.of(), labels(Map.of("region", "eu")));
    List<Precedence.Conflict> conflicts =
        Precedence.conflicts(List.of(production, eu), eu, List.of(PROD_EU));
    assertThat(conflicts).hasSize(1);
    assertThat(conflicts.get(0).message())
        .contains("prod-eu")
        .contains("eu and production")
        .contains("1 requirement each");

    // No current cluster carries both labels: no conflict.
    Target onlyEu = new Target("dev-eu", Map.of("region", "eu"));
    assertThat(Precedence.conflicts(List.of(production, eu), eu, List.of(onlyEu))).isEmpty();
    // Different specificity: no conflict, the more specific wins.
    var both = policy("both", List.of(), labels(Map.of("region", "eu", "tier", "production")));
    assertThat(Precedence.conflicts(List.of(production, both), both, List.of(PROD_EU))).isEmpty();
  }

  @Test
  void twoPoliciesNamingOneClusterAreAConflictEvenBeforeItIsRegistered() {
    var a = policy("a", List.of("later"), null);
    var b = policy("b", List.of("later", "other"), null);
    List<Precedence.Conflict> conflicts = Precedence.conflicts(List.of(a, b), b, List.of());
    assertThat(conflicts).extracting(Precedence.Conflict::cluster).containsExactly("later");
    assertThat(conflicts.get(0).message()).contains("approval policies b and a");
  }

  @Test
  void aTieMadeByALabelChangeGoesToTheNameThatSortsFirstAndIsReported() {
    var zeta = policy("zeta", List.of(), labels(Map.of("tier", "production")));
    var alpha = policy("alpha", List.of(), labels(Map.of("region", "eu")));
    PolicyInForce f = Precedence.resolve(List.of(zeta, alpha), PROD_EU).orElseThrow();
    assertThat(f.policy().name()).isEqualTo("alpha");
    assertThat(f.tiedWith()).containsExactly("zeta");
    assertThat(f.warning()).contains("alpha and zeta").contains("alpha applies");
  }

  @Test
  void aSelectorSurvivesItsStoredJson() {
    LabelSelector s =
        new LabelSelector(
            Map.of("tier", "production"),
            List.of(new Requirement("region", "NotIn", List.of("cn"))));
    assertThat(policy("p", List.of(), s).selector()).isEqualTo(s);
    assertThat(policy("p", List.of(), null).selector()).isNull();
  }

  @Test
  void aSelectorStoredBeforeTheSelectorTypesWereOneStillReads() {
    // Approval policies saved before LabelSelector served them wrote "values": null for Exists.
    String json =
        "{\"matchLabels\":{\"tier\":\"production\"},\"matchExpressions\":"
            + "[{\"key\":\"legacy\",\"operator\":\"DoesNotExist\",\"values\":null}]}";
    LabelSelector read = stored("p", List.of(), json).selector();
    assertThat(read.requirements()).isEqualTo(2);
    assertThat(read.describe()).isEqualTo("tier=production,!legacy");
    assertThat(read.matches(Map.of("tier", "production"))).isTrue();
    assertThat(read.matches(Map.of("tier", "production", "legacy", "yes"))).isFalse();
  }
}

package dev.gitopshq.hub.features;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every gate {@code GET /features} reports (each {@link Feature}) is enforced somewhere: some code
 * of the hub names the gate and calls {@link PlanGuard#require} with it. A gate added without an
 * endpoint that checks it fails here.
 */
// The hub's classes as ArchitectureTest imports them: ArchUnit imports them once per test JVM.
@AnalyzeClasses(packages = "dev.gitopshq.hub", importOptions = ImportOption.DoNotIncludeTests.class)
class FeatureGatesTest {
  @ArchTest
  void everyReportedGateIsRequiredByAGuardedEndpoint(JavaClasses hub) {
    Set<Feature> enforced = EnumSet.noneOf(Feature.class);
    hub.stream()
        .filter(c -> !c.getPackageName().equals(Feature.class.getPackageName()))
        .flatMap(c -> c.getCodeUnits().stream())
        .filter(FeatureGatesTest::callsTheGuard)
        .forEach(
            unit ->
                unit.getFieldAccesses().stream()
                    .filter(a -> a.getTargetOwner().isEquivalentTo(Feature.class))
                    .forEach(a -> enforced.add(Feature.valueOf(a.getTarget().getName()))));
    assertThat(enforced)
        .as("gates no endpoint enforces with PlanGuard.require")
        .containsExactlyInAnyOrder(Feature.values());
  }

  @Test
  void gatesHaveTheDocumentedNamesAndEachPlanOpensWhatTheOnesBelowOpen() {
    for (Feature f : Feature.values()) {
      assertThat(f.gate()).startsWith("Feature");
      assertThat(Plan.ENTERPRISE.includes(f)).as(f.gate()).isTrue();
      if (Plan.FREE.includes(f)) {
        assertThat(Plan.PRO.includes(f)).isTrue();
      }
    }
    assertThat(Plan.of("pro")).isEqualTo(Plan.PRO);
    assertThat(Plan.of("platinum")).as("an unknown plan opens nothing").isEqualTo(Plan.FREE);
  }

  static boolean callsTheGuard(JavaCodeUnit unit) {
    return unit.getMethodCallsFromSelf().stream()
        .anyMatch(
            call ->
                call.getTargetOwner().isEquivalentTo(PlanGuard.class)
                    && call.getName().equals("require"));
  }
}

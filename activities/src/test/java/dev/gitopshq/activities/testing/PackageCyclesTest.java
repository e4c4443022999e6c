package dev.gitopshq.activities.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import org.junit.jupiter.api.Test;

class PackageCyclesTest {
  private static final String ROOT = "dev.gitopshq.activities.testing.fixture";
  private final JavaClasses fixture = new ClassFileImporter().importPackages(ROOT);

  @Test
  void aCycleMadeOfACatchClauseAndANameInAStringIsFound() {
    assertThat(PackageCycles.cycles(fixture, ROOT))
        .singleElement()
        .asString()
        .contains("cycle between [a, b]")
        .contains("catches type <" + ROOT + ".b.Failure>")
        .contains("b -> a: " + ROOT + ".b.Failure names " + ROOT + ".a.Caller in a string");
  }

  @Test
  void archUnitAloneSeesTheCatchClauseButNotTheString() {
    assertThat(PackageCycles.namedInStrings(fixture.get(ROOT + ".b.Failure"), ROOT))
        .containsExactly(ROOT + ".a.Caller");
    // ArchUnit's own rule: the catch clause is a dependency (1.5), the string is not.
    assertThat(fixture.get(ROOT + ".a.Caller").getDirectDependenciesFromSelf())
        .anyMatch(d -> d.getTargetClass().getName().equals(ROOT + ".b.Failure"));
    SlicesRuleDefinition.slices()
        .matching(ROOT + ".(*)..")
        .should()
        .beFreeOfCycles()
        .check(fixture);
  }
}

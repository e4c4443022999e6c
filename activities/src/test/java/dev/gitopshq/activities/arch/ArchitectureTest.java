package dev.gitopshq.activities.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;

/** The activities module's packages do not depend on each other in a circle. */
@AnalyzeClasses(
    packages = "dev.gitopshq.activities",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  void noPackageCycles(JavaClasses classes) {
    slices().matching("dev.gitopshq.activities.(*)..").should().beFreeOfCycles().check(classes);
  }
}

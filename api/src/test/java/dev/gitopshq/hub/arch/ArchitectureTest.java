package dev.gitopshq.hub.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import org.apache.ibatis.annotations.Mapper;
import org.springframework.web.bind.annotation.RestController;

/** The hub's boundaries, checked on every build. */
@AnalyzeClasses(packages = "dev.gitopshq.hub", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  /** Controllers translate HTTP; services own transactions and reach the store. */
  @ArchTest
  void controllersDoNotUseMappersOrRepositories(JavaClasses classes) {
    noClasses()
        .that()
        .areAnnotatedWith(RestController.class)
        .should()
        .dependOnClassesThat()
        .areAnnotatedWith(Mapper.class)
        .orShould()
        .dependOnClassesThat(
            JavaClass.Predicates.resideInAPackage("dev.gitopshq.activities..")
                .and(JavaClass.Predicates.simpleNameEndingWith("Repository")))
        .because("controllers go through a service, which owns the transaction")
        .check(classes);
  }

  @ArchTest
  void noPackageCycles(JavaClasses classes) {
    slices().matching("dev.gitopshq.hub.(*)..").should().beFreeOfCycles().check(classes);
  }

  /** Delivery's shared core knows none of its parts. */
  @ArchTest
  void deliveryCoreKnowsNoPart(JavaClasses classes) {
    noClasses()
        .that()
        .resideInAPackage("dev.gitopshq.hub.delivery")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.gitopshq.hub.delivery.*..")
        .because("the parts build on the core, never the other way round")
        .check(classes);
  }

  /** Delivery's parts stand apart; only an image update reaches into the project it changes. */
  @ArchTest
  void deliveryPartsAreIndependent(JavaClasses classes) {
    slices()
        .matching("dev.gitopshq.hub.delivery.(*)..")
        .should()
        .notDependOnEachOther()
        .ignoreDependency(
            JavaClass.Predicates.resideInAPackage("dev.gitopshq.hub.delivery.image.."),
            JavaClass.Predicates.resideInAPackage("dev.gitopshq.hub.delivery.project.."))
        .check(classes);
  }
}

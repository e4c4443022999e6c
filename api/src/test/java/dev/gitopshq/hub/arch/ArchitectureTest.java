package dev.gitopshq.hub.arch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import dev.gitopshq.activities.testing.PackageCycles;
import org.apache.ibatis.annotations.Mapper;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.ObjectId;
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

  /**
   * JGit only in the git packages ({@code dev.gitopshq.activities.git}, and the hub's Git over HTTP
   * in {@code dev.gitopshq.hub.git}): everything else reads and writes the hosted repositories
   * through {@code ProjectRepos}. The exception is JGit's object id ({@code ObjectId}), the value
   * that API speaks in (a commit's or tree's hash); naming a hash needs no repository.
   */
  @ArchTest
  void jgitOnlyInTheGitPackages(JavaClasses classes) {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.gitopshq.hub.git..")
        .should()
        .dependOnClassesThat(
            JavaClass.Predicates.resideInAPackage("org.eclipse.jgit..")
                .and(not(JavaClass.Predicates.type(ObjectId.class)))
                .and(not(JavaClass.Predicates.type(AnyObjectId.class))))
        .because("the git package's ProjectRepos is the one place that knows JGit")
        .check(classes);
  }

  /** A class named in a string (an annotation value, Class.forName) is a dependency too. */
  @ArchTest
  void noPackageCyclesCountingClassesNamedInStrings(JavaClasses classes) {
    assertThat(PackageCycles.cycles(classes, "dev.gitopshq.hub")).isEmpty();
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

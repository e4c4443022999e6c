package dev.gitopshq.activities.arch;

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
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.ObjectId;

/** The activities module's boundaries, checked on every build. */
@AnalyzeClasses(
    packages = "dev.gitopshq.activities",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  void noPackageCycles(JavaClasses classes) {
    slices().matching("dev.gitopshq.activities.(*)..").should().beFreeOfCycles().check(classes);
  }

  /**
   * JGit only in {@code dev.gitopshq.activities.git}: everything else reads and writes the hosted
   * repositories through {@code ProjectRepos}. The exception is JGit's object id ({@code
   * ObjectId}), the value that API speaks in (a commit's or tree's hash); naming a hash needs no
   * repository.
   */
  @ArchTest
  void jgitOnlyInTheGitPackages(JavaClasses classes) {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.gitopshq.activities.git..")
        .should()
        .dependOnClassesThat(
            JavaClass.Predicates.resideInAPackage("org.eclipse.jgit..")
                .and(not(JavaClass.Predicates.type(ObjectId.class)))
                .and(not(JavaClass.Predicates.type(AnyObjectId.class))))
        .because("the git package's ProjectRepos is the one place that knows JGit")
        .check(classes);
  }

  /** A class named in a string (MyBatis's typeHandler=...) is a dependency too. */
  @ArchTest
  void noPackageCyclesCountingClassesNamedInStrings(JavaClasses classes) {
    assertThat(PackageCycles.cycles(classes, "dev.gitopshq.activities")).isEmpty();
  }

  /**
   * A class named in a string exists: a MyBatis {@code typeHandler=...} naming a class that moved
   * fails only when the mapper is first used, in a running hub.
   */
  @ArchTest
  void everyClassNamedInAStringExists(JavaClasses classes) {
    List<String> missing = new ArrayList<>();
    for (JavaClass c : classes) {
      for (String name : PackageCycles.namedInStrings(c, "dev.gitopshq.activities")) {
        try {
          Class.forName(name, false, getClass().getClassLoader());
        } catch (ClassNotFoundException e) {
          missing.add(c.getName() + " names " + name);
        }
      }
    }
    assertThat(missing).isEmpty();
  }
}

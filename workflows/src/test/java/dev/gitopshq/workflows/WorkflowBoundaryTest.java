package dev.gitopshq.workflows;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The layering rule of ARCHITECTURE.md section 3, and Temporal's determinism rule, checked on the
 * compiled workflows module. The Maven enforcer keeps the banned libraries off the classpath; this
 * test keeps the code itself honest (no wall clock, randomness, threads or JDK networking).
 */
class WorkflowBoundaryTest {

  private static final JavaClasses WORKFLOWS =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.gitopshq.workflows");

  @Test
  void workflowsDoNotReachDatabasesGitClustersOrTheNetwork() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.sql..",
            "javax.sql..",
            "java.net..",
            "java.net.http..",
            "java.nio.file..",
            "org.springframework..",
            "org.apache.ibatis..",
            "org.mybatis..",
            "org.eclipse.jgit..",
            "io.fabric8..",
            "okhttp3..",
            "dev.gitopshq.activities..",
            "dev.gitopshq.hub..",
            "dev.gitopshq.agent..")
        .because("workflow code must stay deterministic and free of I/O")
        .check(WORKFLOWS);
  }

  @Test
  void workflowsUseWorkflowTimeAndRandomnessOnly() {
    noClasses()
        .should()
        .callMethod(Instant.class, "now")
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .orShould()
        .callMethod(UUID.class, "randomUUID")
        .orShould()
        .callMethod(LocalDateTime.class, "now")
        .orShould()
        .callMethod(OffsetDateTime.class, "now")
        .orShould()
        .callMethod(ZonedDateTime.class, "now")
        .orShould()
        .callMethod(Thread.class, "sleep", long.class)
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(Clock.class)
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(java.util.Random.class)
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(Thread.class)
        .orShould()
        .dependOnClassesThat()
        .resideInAPackage("java.util.concurrent..")
        .because("use Workflow.currentTimeMillis(), Workflow.randomUUID() and Workflow.sleep()")
        .check(WORKFLOWS);
  }
}

package dev.gitopshq.agent.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/** The agent's boundaries, checked on every build. */
@AnalyzeClasses(
    packages = "dev.gitopshq.agent",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  /**
   * The model computes objects from objects: Fabric8's model classes and the JDK only, never a
   * Kubernetes client, so what it decides can be tested without a cluster.
   */
  @ArchTest
  void theModelUsesOnlyFabric8sModelClasses(JavaClasses classes) {
    classes()
        .that()
        .resideInAPackage("dev.gitopshq.agent.model..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.gitopshq.agent.model..",
            "java..",
            "io.fabric8.kubernetes.api.model..",
            "io.fabric8.kubernetes.api.builder..")
        .check(classes);
  }

  /** The proxy rules stand alone: the configuration and the link use them, never back. */
  @ArchTest
  void theProxyDependsOnNothingElseInTheAgent(JavaClasses classes) {
    noClasses()
        .that()
        .resideInAPackage("dev.gitopshq.agent.proxy..")
        .should()
        .dependOnClassesThat(
            JavaClass.Predicates.resideInAPackage("dev.gitopshq.agent..")
                .and(JavaClass.Predicates.resideOutsideOfPackage("dev.gitopshq.agent.proxy..")))
        .check(classes);
  }

  /**
   * The Kubernetes client only in the packages that {@code dev.gitopshq.agent.kube}'s package
   * documentation names, each for its own capability.
   */
  @ArchTest
  void theKubernetesClientOnlyInNamedPackages(JavaClasses classes) {
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "dev.gitopshq.agent",
            "dev.gitopshq.agent.kube..",
            "dev.gitopshq.agent.adapters..",
            "dev.gitopshq.agent.credentials..",
            "dev.gitopshq.agent.deploy..",
            "dev.gitopshq.agent.drift..",
            "dev.gitopshq.agent.identity..",
            "dev.gitopshq.agent.inspect..",
            "dev.gitopshq.agent.inventory..",
            "dev.gitopshq.agent.logs..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.fabric8.kubernetes.client..")
        .because("dev.gitopshq.agent.kube's package documentation lists who may use the client")
        .check(classes);
  }

  /**
   * The handlers of the hub's jobs hold their domain logic only: the job runner ({@code
   * dev.gitopshq.agent.jobs}) owns the worker threads, the idempotency, the deadlines and the
   * capability checks, so none of them starts an executor of its own.
   */
  @ArchTest
  void jobHandlersStartNoThreadsOfTheirOwn(JavaClasses classes) {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.gitopshq.agent.adapters..",
            "dev.gitopshq.agent.commands..",
            "dev.gitopshq.agent.credentials..",
            "dev.gitopshq.agent.deploy..",
            "dev.gitopshq.agent.drift..",
            "dev.gitopshq.agent.inspect..")
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName(Executors.class.getName())
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(Executor.class)
        .because("the job runner runs them (dev.gitopshq.agent.jobs)")
        .check(classes);
  }

  @ArchTest
  void noPackageCycles(JavaClasses classes) {
    slices().matching("dev.gitopshq.agent.(*)..").should().beFreeOfCycles().check(classes);
  }
}

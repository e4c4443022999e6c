package dev.gitopshq.charts;

import static dev.gitopshq.charts.Chart.NAMESPACE;
import static dev.gitopshq.charts.Chart.values;
import static dev.gitopshq.charts.Permissions.table;
import static dev.gitopshq.charts.Permissions.union;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent's RBAC against the product documentation's "Agent RBAC Requirements" tables: what each
 * profile and capability grants, and nothing more.
 */
@Tag("integration") // runs the helm binary
class AgentChartRbacTest {
  static final Chart CHART = Chart.agent();

  static final List<String> WRITE_CAPABILITIES =
      List.of(
          "argocdWrite", "directDeploy", "kubernetesRestart", "kubernetesScale", "credentialSync");
  static final List<String> ALL_CAPABILITIES =
      List.of(
          "observe",
          "diagnosticsRead",
          "argocdRead",
          "argocdWrite",
          "directDeploy",
          "kubernetesRestart",
          "kubernetesScale",
          "credentialSync",
          "tokenRotate");

  static final String OBSERVED_RESOURCES =
      "core/pods apps/deployments core/services core/configmaps core/secrets apps/statefulsets"
          + " apps/daemonsets batch/jobs batch/cronjobs networking.k8s.io/ingresses apps/replicasets";

  // The readonly table, row by row; the inventory's informers also watch namespaces, nodes and
  // persistent volume claims (the seed's table has namespaces with get and list only).
  static final Map<String, Set<String>> OBSERVE =
      table(
          OBSERVED_RESOURCES,
          "get,list,watch",
          "core/events",
          "get,list,watch",
          "core/namespaces core/nodes core/persistentvolumeclaims",
          "get,list,watch",
          // Flux, for the bindings' sync state (absent clusters simply have none).
          "kustomize.toolkit.fluxcd.io/kustomizations source.toolkit.fluxcd.io/gitrepositories",
          "get,list");
  static final Map<String, Set<String>> DIAGNOSTICS_READ = table("core/pods/log", "get");
  static final Map<String, Set<String>> ARGOCD_READ =
      table("argoproj.io/applications", "get,list,watch");
  static final Map<String, Set<String>> READONLY = union(OBSERVE, DIAGNOSTICS_READ, ARGOCD_READ);

  // The readwrite table's extra verbs, row by row.
  static final Map<String, Map<String, Set<String>>> EXTRA =
      Map.of(
          "kubernetesRestart", table("apps/deployments", "patch"),
          "kubernetesScale", table("apps/deployments", "patch"),
          "argocdWrite", table("argoproj.io/applications", "patch,update"),
          // The guide's row (create, get, update, patch), plus list and delete: the agent
          // removes the Secrets of unassigned credentials (only those labelled as its own).
          "credentialSync", table("core/secrets", "create,get,list,update,patch,delete"),
          // get: the agent reads each object before applying it (ownership) and pruning it.
          "directDeploy", table(OBSERVED_RESOURCES, "get,create,update,patch,delete"));

  /** Capabilities exactly as given: every other capability off. */
  static Map<String, Object> only(String profile, String... enabled) {
    Map<String, Object> caps = new LinkedHashMap<>();
    ALL_CAPABILITIES.forEach(c -> caps.put(c, false));
    for (String c : enabled) {
      caps.put(c, true);
    }
    return values("rbac.profile", profile, "capabilities", caps);
  }

  static Map<String, Set<String>> clusterWide(Rendered r) {
    return Permissions.of(
        r.all(ClusterRole.class).stream().flatMap(c -> c.getRules().stream()).toList());
  }

  static List<PolicyRule> allRules(Rendered r) {
    List<PolicyRule> rules = new ArrayList<>();
    r.all(ClusterRole.class).forEach(c -> rules.addAll(c.getRules()));
    r.all(Role.class).forEach(c -> rules.addAll(c.getRules()));
    return rules;
  }

  /** Rules of every Role and ClusterRole except the identity Secret's Role. */
  static List<PolicyRule> workloadRules(Rendered r) {
    List<PolicyRule> rules = new ArrayList<>();
    r.all(ClusterRole.class).forEach(c -> rules.addAll(c.getRules()));
    r.all(Role.class).stream()
        .filter(role -> !role.getMetadata().getName().endsWith("-identity"))
        .forEach(c -> rules.addAll(c.getRules()));
    return rules;
  }

  @Test
  void defaultsGrantExactlyTheReadonlyTable() {
    Rendered r = CHART.render();

    assertThat(r.all(ClusterRole.class)).hasSize(1);
    assertThat(clusterWide(r)).isEqualTo(READONLY);
    assertThat(Permissions.verbs(workloadRules(r)))
        .containsExactlyInAnyOrder("get", "list", "watch");
    ClusterRole role = r.get(ClusterRole.class, "gitopshq-agent");
    assertThat(role.getMetadata().getAnnotations())
        .containsEntry("gitopshq.dev/rbac-profile", "readonly");
  }

  @Test
  void readonlyGrantsNoWriteVerbWhateverTheCapabilitiesSay() {
    Map<String, Object> v = only("readonly", ALL_CAPABILITIES.toArray(String[]::new));
    Chart.put(v, "credentialSync.targets", List.of("apps"));
    Rendered r = CHART.render(v);

    assertThat(clusterWide(r)).isEqualTo(READONLY);
    assertThat(Permissions.verbs(workloadRules(r)))
        .doesNotContainAnyElementsOf(Permissions.WRITE_VERBS);
    assertThat(r.all(Role.class))
        .extracting(role -> role.getMetadata().getName())
        .containsExactly("gitopshq-agent-identity");
  }

  static Stream<Arguments> writeCapabilities() {
    return WRITE_CAPABILITIES.stream().map(c -> Arguments.of(c, EXTRA.get(c)));
  }

  @ParameterizedTest(name = "readwrite + {0}")
  @MethodSource("writeCapabilities")
  void eachWriteCapabilityAddsItsOwnVerbsAndNoOthers(
      String capability, Map<String, Set<String>> extra) {
    Rendered with =
        CHART.render(only("readwrite", "observe", "diagnosticsRead", "argocdRead", capability));
    Rendered without = CHART.render(only("readwrite", "observe", "diagnosticsRead", "argocdRead"));

    assertThat(clusterWide(with)).isEqualTo(union(READONLY, extra));
    assertThat(clusterWide(without)).isEqualTo(READONLY);
  }

  @Test
  void restartAndScaleShareTheDeploymentPatchRule() {
    Rendered r = CHART.render(only("readwrite", "kubernetesRestart", "kubernetesScale"));

    assertThat(clusterWide(r)).isEqualTo(table("apps/deployments", "patch"));
  }

  @Test
  void readwriteWithEveryWriteCapabilityOffGrantsNoWriteVerb() {
    Rendered r = CHART.render(values("rbac.profile", "readwrite"));

    assertThat(clusterWide(r)).isEqualTo(READONLY);
    assertThat(Permissions.verbs(workloadRules(r)))
        .doesNotContainAnyElementsOf(Permissions.WRITE_VERBS);
  }

  @Test
  void readwriteWithEverythingGrantsBothTables() {
    Rendered r = CHART.render(only("readwrite", ALL_CAPABILITIES.toArray(String[]::new)));

    assertThat(clusterWide(r))
        .isEqualTo(
            union(
                READONLY,
                EXTRA.get("kubernetesRestart"),
                EXTRA.get("argocdWrite"),
                EXTRA.get("credentialSync"),
                EXTRA.get("directDeploy")));
    assertThat(r.get(ClusterRole.class, "gitopshq-agent").getMetadata().getAnnotations())
        .containsEntry("gitopshq.dev/rbac-profile", "readwrite");
  }

  @Test
  void directDeployAloneMayReadWhatItApplies() {
    // Without observe, the agent still reads each object before it applies (is it GitOpsHQ's?)
    // or prunes it.
    assertThat(clusterWide(CHART.render(only("readwrite", "directDeploy"))))
        .isEqualTo(EXTRA.get("directDeploy"));
  }

  @Test
  void eachReadCapabilityGrantsOnlyItsRows() {
    assertThat(clusterWide(CHART.render(only("readonly", "observe")))).isEqualTo(OBSERVE);
    assertThat(clusterWide(CHART.render(only("readonly", "diagnosticsRead"))))
        .isEqualTo(DIAGNOSTICS_READ);
    assertThat(clusterWide(CHART.render(only("readonly", "argocdRead")))).isEqualTo(ARGOCD_READ);
  }

  @Test
  void tokenRotateAloneNeedsNoClusterRole() {
    Rendered r = CHART.render(only("readonly", "tokenRotate"));

    assertThat(r.all(ClusterRole.class)).isEmpty();
    assertThat(r.all(ClusterRoleBinding.class)).isEmpty();
    assertThat(r.all(Role.class))
        .extracting(role -> role.getMetadata().getName())
        .containsExactly("gitopshq-agent-identity");
  }

  static Stream<Map<String, Object>> configurations() {
    Map<String, Object> scoped = only("readwrite", ALL_CAPABILITIES.toArray(String[]::new));
    Chart.put(scoped, "diagnostics.allowedNamespaces", List.of("web", "payments"));
    Chart.put(scoped, "credentialSync.targets", List.of("web"));
    return Stream.of(
        values(),
        only("readonly", ALL_CAPABILITIES.toArray(String[]::new)),
        only("readwrite", ALL_CAPABILITIES.toArray(String[]::new)),
        scoped,
        values(
            "persistence.type",
            "pvc",
            "rbac.profile",
            "readwrite",
            "capabilities.directDeploy",
            true));
  }

  @Test
  void adapterWireIsTheOneCapabilityThatMayBindAndEscalateAndOnlyOnClusterRoles() {
    List<PolicyRule> rules = allRules(CHART.render(only("readwrite", "adapterWire")));
    assertThat(rules)
        .filteredOn(r -> r.getVerbs().stream().anyMatch(Permissions.ESCALATING_VERBS::contains))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getResources()).containsExactly("clusterroles");
              assertThat(r.getVerbs()).containsExactlyInAnyOrder("bind", "escalate");
            });
    assertThat(rules)
        .anySatisfy(
            r -> {
              assertThat(r.getResources()).contains("kustomizations");
              assertThat(r.getVerbs()).contains("create", "delete");
            });
    // Read-only: no adapter objects, nothing escalating, whatever the value says.
    assertThat(allRules(CHART.render(only("readonly", "observe", "adapterWire"))))
        .noneSatisfy(
            r -> assertThat(r.getVerbs()).containsAnyElementsOf(Permissions.ESCALATING_VERBS));
  }

  @ParameterizedTest
  @MethodSource("configurations")
  void noWildcardNoEscalationAndEveryBindingPointsAtTheAgent(Map<String, Object> v) {
    Rendered r = CHART.render(v);

    for (PolicyRule rule : allRules(r)) {
      Stream.of(
              rule.getApiGroups(),
              rule.getResources(),
              rule.getVerbs(),
              rule.getResourceNames() == null ? List.<String>of() : rule.getResourceNames())
          .flatMap(List::stream)
          .forEach(s -> assertThat(s).as("rule %s", rule).doesNotContain("*"));
      assertThat(rule.getVerbs()).doesNotContainAnyElementsOf(Permissions.ESCALATING_VERBS);
      assertThat(rule.getResources())
          .doesNotContain(
              "roles",
              "rolebindings",
              "clusterroles",
              "clusterrolebindings",
              "serviceaccounts/token",
              "nodes/proxy",
              "pods/exec");
    }
    for (ClusterRoleBinding b : r.all(ClusterRoleBinding.class)) {
      assertThat(b.getRoleRef().getKind()).isEqualTo("ClusterRole");
      assertThat(r.find(ClusterRole.class, b.getRoleRef().getName())).isPresent();
      assertThat(b.getSubjects())
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.getKind()).isEqualTo("ServiceAccount");
                assertThat(s.getName()).isEqualTo("gitopshq-agent");
                assertThat(s.getNamespace()).isEqualTo(NAMESPACE);
              });
    }
    for (RoleBinding b : r.all(RoleBinding.class)) {
      assertThat(b.getRoleRef().getKind()).isEqualTo("Role");
      assertThat(r.all(Role.class))
          .anySatisfy(
              role -> {
                assertThat(role.getMetadata().getName()).isEqualTo(b.getRoleRef().getName());
                assertThat(role.getMetadata().getNamespace())
                    .isEqualTo(b.getMetadata().getNamespace());
              });
      assertThat(b.getSubjects())
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.getName()).isEqualTo("gitopshq-agent");
                assertThat(s.getNamespace()).isEqualTo(NAMESPACE);
              });
    }
  }

  @Test
  void theIdentityRoleWritesOnlyTheIdentitySecretExceptForCreate() {
    Rendered r = CHART.render();

    Role role = r.get(Role.class, "gitopshq-agent-identity");
    assertThat(role.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
    // create cannot be limited by resourceNames in Kubernetes; it is the only unnamed rule.
    assertThat(Permissions.of(role.getRules()))
        .isEqualTo(
            table(
                "core/secrets[gitopshq-agent-identity]", "get,update,patch",
                "core/secrets", "create"));
    assertThat(r.get(RoleBinding.class, "gitopshq-agent-identity").getRoleRef().getName())
        .isEqualTo("gitopshq-agent-identity");

    Rendered named = CHART.render(values("persistence.secretName", "agent-id"));
    assertThat(Permissions.of(named.get(Role.class, "gitopshq-agent-identity").getRules()))
        .containsEntry("core/secrets[agent-id]", Set.of("get", "update", "patch"));
  }

  @Test
  void noIdentityRoleWithoutASecretStore() {
    assertThat(CHART.render(values("persistence.type", "pvc")).all(Role.class)).isEmpty();
    assertThat(CHART.render(values("persistence.enabled", false)).all(Role.class)).isEmpty();
  }

  @Test
  void allowedNamespacesMovePodLogsIntoThoseNamespacesOnly() {
    Rendered r = CHART.render(values("diagnostics.allowedNamespaces", List.of("web", "payments")));

    assertThat(clusterWide(r)).isEqualTo(union(OBSERVE, ARGOCD_READ));
    List<Role> roles =
        r.all(Role.class).stream()
            .filter(role -> role.getMetadata().getName().equals("gitopshq-agent-diagnostics"))
            .toList();
    assertThat(roles)
        .extracting(role -> role.getMetadata().getNamespace())
        .containsExactly("web", "payments");
    roles.forEach(role -> assertThat(Permissions.of(role.getRules())).isEqualTo(DIAGNOSTICS_READ));
    assertThat(r.all(RoleBinding.class))
        .extracting(b -> b.getMetadata().getNamespace() + "/" + b.getMetadata().getName())
        .contains("web/gitopshq-agent-diagnostics", "payments/gitopshq-agent-diagnostics");
  }

  @Test
  void credentialSyncTargetsLimitSecretWritesToThoseNamespaces() {
    Map<String, Object> v = only("readwrite", "observe", "credentialSync");
    Chart.put(v, "credentialSync.targets", List.of("web"));
    Rendered r = CHART.render(v);

    assertThat(clusterWide(r)).isEqualTo(OBSERVE);
    Role role = r.get(Role.class, "gitopshq-agent-credential-sync");
    assertThat(role.getMetadata().getNamespace()).isEqualTo("web");
    assertThat(Permissions.of(role.getRules())).isEqualTo(EXTRA.get("credentialSync"));
  }

  @Test
  void rbacCreateFalseRendersNoRbacAtAll() {
    Rendered r =
        CHART.render(
            values(
                "rbac.create",
                false,
                "rbac.profile",
                "readwrite",
                "capabilities.directDeploy",
                true,
                "diagnostics.allowedNamespaces",
                List.of("web")));

    List<Class<? extends HasMetadata>> rbacKinds =
        List.of(ClusterRole.class, ClusterRoleBinding.class, Role.class, RoleBinding.class);
    rbacKinds.forEach(kind -> assertThat(r.all(kind)).as(kind.getSimpleName()).isEmpty());
  }
}

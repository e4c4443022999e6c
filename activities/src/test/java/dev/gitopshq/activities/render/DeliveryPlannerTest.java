package dev.gitopshq.activities.render;

import static dev.gitopshq.activities.render.Fixtures.cluster;
import static dev.gitopshq.activities.render.Fixtures.json;
import static dev.gitopshq.activities.render.Fixtures.overlay;
import static dev.gitopshq.activities.render.Fixtures.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DeliveryPlannerTest {
  private static final String PATTERN = "{{ .tenant }}-{{ .environment }}";
  private static final Map<String, String> REDIS_BASE =
      Map.of(
          "kustomization.yaml", "resources:\n- deployment.yaml\n",
          "deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: redis\n");
  private static final Map<String, String> BUNDLE =
      Map.of(
          "cm.yaml",
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  host: ${DB_HOST}\n");

  private static Fixtures shop() {
    return Fixtures.project()
        .environment("staging", PATTERN, cluster("stage-1"))
        .environment("production", PATTERN, cluster("eu-1"), cluster("us-1"))
        .environment("sandbox", PATTERN)
        .tenants("acme", "globex")
        .workload("web", "{}")
        .workload("api", "{}")
        .variable("org", null, "DB_HOST", "db.internal")
        .binding(
            "settings",
            "manifests",
            "settings-bundle",
            BUNDLE,
            List.of(),
            target("acme", "production"),
            target("acme", "sandbox"))
        .binding(
            "cache",
            "kustomize",
            "redis",
            REDIS_BASE,
            List.of(),
            target("acme", "staging"),
            target("globex", "production"));
  }

  @Test
  void aNamespacePatternGivingAReservedNamespaceFailsThePlanNamingTheEnvironment() {
    Fixtures f =
        Fixtures.project()
            .environment("dev", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
            .environment("production", "kube-system", cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{}");

    assertThatThrownBy(f::plan)
        .isInstanceOf(PlanException.class)
        .hasMessage(
            "namespace pattern 'kube-system' of environment production gives kube-system for"
                + " tenant acme on cluster eu-1: namespace kube-system is reserved (kube-system,"
                + " kube-public, kube-node-lease, flux-system, argocd); the project's fence must"
                + " name it to allow it");

    // An admin who names it exactly in the fence allows it.
    f.fence(List.of("kube-system", "acme-*"), List.of(), List.of());
    assertThat(f.plan()).extracting(Unit::namespace).containsExactly("acme-dev", "kube-system");
  }

  @Test
  void theFenceIsPartOfEveryUnitSoAFenceChangeRendersAgain() {
    Fixtures f =
        Fixtures.project()
            .environment("dev", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{}");
    Unit before = f.plan().get(0);
    f.fence(List.of(), List.of("rbac.authorization.k8s.io/ClusterRole"), List.of());
    Unit after = f.plan().get(0);

    assertThat(after.fence().clusterScopedKinds())
        .containsExactly("rbac.authorization.k8s.io/ClusterRole");
    assertThat(UnitFingerprint.of(after, Renderer.OUTPUT_VERSION))
        .isNotEqualTo(UnitFingerprint.of(before, Renderer.OUTPUT_VERSION));
  }

  @Test
  void plansEveryEnvironmentClusterTenantAndWorkloadSortedByPath() {
    List<Unit> units = shop().plan();

    assertThat(units)
        .extracting(u -> u.path() + " " + u.kind() + " " + u.namespace())
        .containsExactly(
            "rendered/production/_bases/redis kustomize-base ",
            "rendered/production/eu-1/acme/api helm acme-production",
            "rendered/production/eu-1/acme/settings manifests acme-production",
            "rendered/production/eu-1/acme/web helm acme-production",
            "rendered/production/eu-1/globex/api helm globex-production",
            "rendered/production/eu-1/globex/cache kustomize globex-production",
            "rendered/production/eu-1/globex/web helm globex-production",
            "rendered/production/us-1/acme/api helm acme-production",
            "rendered/production/us-1/acme/settings manifests acme-production",
            "rendered/production/us-1/acme/web helm acme-production",
            "rendered/production/us-1/globex/api helm globex-production",
            "rendered/production/us-1/globex/cache kustomize globex-production",
            "rendered/production/us-1/globex/web helm globex-production",
            "rendered/staging/_bases/redis kustomize-base ",
            "rendered/staging/stage-1/acme/api helm acme-staging",
            "rendered/staging/stage-1/acme/cache kustomize acme-staging",
            "rendered/staging/stage-1/acme/web helm acme-staging",
            "rendered/staging/stage-1/globex/api helm globex-staging",
            "rendered/staging/stage-1/globex/web helm globex-staging");
  }

  @Test
  void fillsTheUnitsOfEachKind() {
    List<Unit> units = shop().plan();

    Unit web = find(units, "rendered/production/us-1/globex/web");
    assertThat(web.chart()).isEqualTo("webapp");
    assertThat(web.chartVersion()).isEqualTo("1.2.0");
    assertThat(web.chartDigest()).isEqualTo("0".repeat(64));
    assertThat(List.of(web.environment(), web.cluster(), web.tenant(), web.service()))
        .containsExactly("production", "us-1", "globex", "web");
    assertThat(web.variables()).isEqualTo(Map.of("DB_HOST", "db.internal"));

    Unit cache = find(units, "rendered/production/eu-1/globex/cache");
    assertThat(cache.basePath()).isEqualTo("../../../_bases/redis");
    assertThat(cache.files()).isEmpty();

    Unit base = find(units, "rendered/production/_bases/redis");
    assertThat(base.files()).isEqualTo(REDIS_BASE);
    assertThat(List.of(base.cluster(), base.tenant(), base.service(), base.namespace()))
        .containsOnly("");

    Unit settings = find(units, "rendered/production/eu-1/acme/settings");
    assertThat(settings.files().get("cm.yaml")).contains("host: db.internal");
  }

  @Test
  void isDeterministic() {
    assertThat(shop().plan()).isEqualTo(shop().plan());
  }

  @Test
  void rendersNothingWithoutTenantsOrClusters() {
    Fixtures noTenants = shop();
    noTenants.tenants.clear();
    noTenants.bindings.clear();
    assertThat(noTenants.plan()).isEmpty();

    Fixtures noClusters =
        Fixtures.project().environment("production", PATTERN).tenants("acme").workload("web", "{}");
    assertThat(noClusters.plan()).isEmpty();
  }

  /**
   * One variable, NAME, defined at the scopes listed; which value each unit sees. The values are
   * the scope names (the environment, tenant and service ones say which they are bound to).
   */
  @ParameterizedTest(name = "defined at [{0}]: {1}/{2}/{3} sees {4}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      org                                                 | staging    | globex | api | org
      org project                                         | staging    | globex | api | project
      org project env:production                          | staging    | globex | api | project
      org project env:production                          | production | globex | api | env:production
      org project env:production tenant:acme              | production | globex | api | env:production
      org project env:production tenant:acme              | production | acme   | api | tenant:acme
      org project env:production tenant:acme              | staging    | acme   | api | tenant:acme
      org project env:production tenant:acme service:web  | production | acme   | web | service:web
      org project env:production tenant:acme service:web  | production | acme   | api | tenant:acme
      org env:staging service:api                         | staging    | globex | api | service:api
      org env:staging service:api                         | staging    | globex | web | env:staging
      org env:staging service:api                         | production | globex | web | org
      project service:web                                 | production | acme   | web | service:web
      project service:web                                 | production | acme   | api | project
      """)
  void variablePrecedence(
      String scopes, String env, String tenant, String service, String expected) {
    Fixtures f =
        Fixtures.project()
            .environment("staging", PATTERN, cluster("c1"))
            .environment("production", PATTERN, cluster("c2"))
            .tenants("acme", "globex")
            .workload("web", "{'seen':'${NAME}'}")
            .workload("api", "{'seen':'${NAME}'}");
    // Defined from the highest scope to the lowest, so the order in the snapshot cannot decide.
    List<String> defined = Arrays.asList(scopes.split(" "));
    java.util.Collections.reverse(defined);
    for (String s : defined) {
      String[] parts = s.split(":");
      String scope = parts[0].equals("env") ? "environment" : parts[0];
      f.variable(scope, parts.length > 1 ? parts[1] : null, "NAME", s);
    }

    Unit unit =
        find(
            f.plan(),
            "rendered/"
                + env
                + "/"
                + (env.equals("staging") ? "c1" : "c2")
                + "/"
                + tenant
                + "/"
                + service);

    assertThat(unit.variables()).containsEntry("NAME", expected);
    assertThat(unit.values()).containsEntry("seen", expected);
  }

  /** One key set in the layers listed; which value the unit's merged values hold. */
  @ParameterizedTest(name = "set in [{0}]: {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      workload                   | workload
      workload tenant            | tenant
      workload tenant cluster    | cluster
      workload cluster           | cluster
      tenant                     | tenant
      cluster                    | cluster
      """)
  void valuesLayers(String layers, String expected) {
    List<String> set = List.of(layers.split(" "));
    String workload =
        set.contains("workload")
            ? "{'image':{'tag':'workload','repository':'r'}}"
            : "{'image':{'repository':'r'}}";
    Fixtures f =
        Fixtures.project()
            .environment(
                "production",
                PATTERN,
                set.contains("cluster")
                    ? cluster("eu-1", "{'image':{'tag':'cluster'}}")
                    : cluster("eu-1"))
            .tenants("acme", "globex")
            .workload("web", workload);
    if (set.contains("tenant")) {
      f.values("web", "acme", "production", "{'image':{'tag':'tenant'}}");
      // Another tenant's and another environment's values never leak in.
      f.values("web", "globex", "production", "{'image':{'tag':'globex'}}");
      f.values("web", "acme", "staging", "{'image':{'tag':'staging'}}");
    }

    Unit unit = find(f.plan(), "rendered/production/eu-1/acme/web");

    assertThat(unit.values())
        .isEqualTo(json("{'image':{'repository':'r','tag':'" + expected + "'}}"));
  }

  @Test
  void substitutesVariablesAfterMergingAndKeepsEscapes() {
    Fixtures f =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1", "{'db':{'region':'${REGION}'}}"))
            .tenants("acme")
            .workload(
                "web",
                "{'db':{'host':'${DB_HOST}','port':5432},'cmd':['echo','$${DB_HOST}'],'${DB_HOST}':1}")
            .values("web", "acme", "production", "{'db':{'host':'${DB_HOST}.${TENANT_SUFFIX}'}}")
            .variable("org", null, "DB_HOST", "db")
            .variable("environment", "production", "REGION", "eu")
            .variable("tenant", "acme", "TENANT_SUFFIX", "acme.internal");

    Unit unit = find(f.plan(), "rendered/production/eu-1/acme/web");

    assertThat(unit.values())
        .isEqualTo(
            json(
                """
        {'db':{'host':'db.acme.internal','port':5432,'region':'eu'},'cmd':['echo','${DB_HOST}'],'${DB_HOST}':1}"""));
  }

  @Test
  void substitutesVariablesInBundlesAndOverlays() {
    Fixtures f =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1"))
            .tenants("acme", "globex")
            .variable("tenant", "acme", "DB_HOST", "acme-db")
            .variable("tenant", "globex", "DB_HOST", "globex-db")
            .variable("service", "settings", "LEVEL", "debug")
            .binding(
                "settings",
                "manifests",
                "settings-bundle",
                BUNDLE,
                List.of(overlay("ConfigMap", "settings", "{'data':{'level':'${LEVEL}'}}")),
                target("acme", "production"),
                target("globex", "production"));

    List<Unit> units = f.plan();

    Unit acme = find(units, "rendered/production/eu-1/acme/settings");
    assertThat(acme.files().get("cm.yaml")).contains("host: acme-db").doesNotContain("${");
    assertThat(acme.overlays().get(0).patch()).isEqualTo(json("{'data':{'level':'debug'}}"));
    assertThat(find(units, "rendered/production/eu-1/globex/settings").files().get("cm.yaml"))
        .contains("host: globex-db");
  }

  @Test
  void anUndefinedVariableSaysWhichAndWhere() {
    Fixtures f =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{'db':{'host':'${DB_HOST}'}}");

    assertThatThrownBy(f::plan)
        .isInstanceOf(PlanException.class)
        .hasMessage(
            "values of web for tenant acme in production on cluster eu-1 reference ${DB_HOST}"
                + " (at db.host), which no HQ variable defines");
  }

  @Test
  void anUndefinedVariableInABundleSaysWhichFile() {
    Fixtures f =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1"))
            .tenants("acme")
            .binding(
                "settings",
                "manifests",
                "settings-bundle",
                BUNDLE,
                List.of(),
                target("acme", "production"));

    assertThatThrownBy(f::plan)
        .isInstanceOf(PlanException.class)
        .hasMessage(
            "file cm.yaml of bundle settings-bundle of binding settings for tenant acme in production"
                + " reference ${DB_HOST} (at data.host), which no HQ variable defines");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{{ .tenant }}-{{ .env }}",
        "{{ tenant }}",
        "{{ .tenant | upper }}",
        "{{ .tenant }}-{{ .environment",
        "ns-}}",
        "{{- .tenant -}}"
      })
  void refusesOtherTemplateText(String pattern) {
    Fixtures f =
        Fixtures.project()
            .environment("production", pattern, cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{}");

    assertThatThrownBy(f::plan)
        .isInstanceOf(PlanException.class)
        .hasMessageStartingWith(
            "namespace pattern '" + pattern + "' of environment production contains '")
        .hasMessageEndingWith(
            "only {{ .tenant }}, {{ .environment }}, {{ .project }} and {{ .cluster }} may be used");
  }

  @Test
  void acceptsEveryPlaceholderWithOrWithoutSpaces() {
    Fixtures f =
        Fixtures.project()
            .environment(
                "production",
                "{{.project}}-{{ .cluster}}-{{.tenant }}-{{  .environment  }}",
                cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{}");

    assertThat(f.plan().get(0).namespace()).isEqualTo("shop-eu-1-acme-production");
  }

  @Test
  void refusesAPatternThatGivesAnInvalidNamespace() {
    Fixtures underscore =
        Fixtures.project()
            .environment("production", "{{ .tenant }}_{{ .environment }}", cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{}");
    assertThatThrownBy(underscore::plan)
        .isInstanceOf(PlanException.class)
        .hasMessage(
            "namespace pattern '{{ .tenant }}_{{ .environment }}' of environment production gives"
                + " 'acme_production' for tenant acme on cluster eu-1, which is not a valid namespace: a namespace"
                + " must be an RFC 1123 label: lowercase letters, digits and '-', starting and ending with a"
                + " letter or digit");

    String longTenant = "t".repeat(60);
    Fixtures tooLong =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1"))
            .tenants(longTenant)
            .workload("web", "{}");
    assertThatThrownBy(tooLong::plan)
        .isInstanceOf(PlanException.class)
        .hasMessageContaining("gives '" + longTenant + "-production'")
        .hasMessageEndingWith("it is 71 characters long; a namespace has at most 63");
  }

  @Test
  void twoTenantsInOneNamespaceAskForTheTenantInThePattern() {
    Fixtures f =
        Fixtures.project()
            .environment("production", "shop-{{ .environment }}", cluster("eu-1"))
            .tenants("acme", "globex")
            .workload("web", "{}");

    assertThatThrownBy(f::plan)
        .isInstanceOf(PlanException.class)
        .hasMessage(
            "workload web would be rendered into namespace shop-production on cluster eu-1 twice"
                + " (tenant acme in production and tenant globex in production): put {{ .tenant }} in the"
                + " namespace pattern 'shop-{{ .environment }}' of environment production so that every tenant"
                + " gets its own namespace");
  }

  @Test
  void twoEnvironmentsInOneNamespaceAskForTheEnvironmentInThePattern() {
    Fixtures f =
        Fixtures.project()
            .environment("staging", "{{ .tenant }}", cluster("shared"))
            .environment("production", "{{ .tenant }}", cluster("shared"))
            .tenants("acme")
            .workload("web", "{}");

    assertThatThrownBy(f::plan)
        .isInstanceOf(PlanException.class)
        .hasMessageContaining(
            "workload web would be rendered into namespace acme on cluster shared twice")
        .hasMessageEndingWith(
            "put {{ .environment }} in the namespace patterns of staging and production so"
                + " that the environments sharing this cluster get their own namespaces");
  }

  @Test
  void aPatternWithoutTheTenantIsFineForOneTenant() {
    Fixtures f =
        Fixtures.project()
            .environment("production", "shop", cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{}")
            .workload("api", "{}");

    assertThat(f.plan()).extracting(Unit::namespace).containsOnly("shop");
  }

  @Test
  void aWorkloadAndABindingWithTheSameNameClash() {
    Fixtures f =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1"))
            .tenants("acme")
            .workload("cache", "{}")
            .binding(
                "cache", "kustomize", "redis", REDIS_BASE, List.of(), target("acme", "production"));

    assertThatThrownBy(f::plan)
        .isInstanceOf(PlanException.class)
        .hasMessage(
            "workload cache and Kustomize binding cache would both render into"
                + " rendered/production/eu-1/acme/cache: give one of them another name");
  }

  @Test
  void refusesBindingsThatTargetWhatTheProjectLacks() {
    Fixtures tenant =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1"))
            .tenants("acme")
            .binding(
                "cache",
                "kustomize",
                "redis",
                REDIS_BASE,
                List.of(),
                target("initech", "production"));
    assertThatThrownBy(tenant::plan)
        .hasMessage("binding cache targets tenant initech, which is not a tenant of project shop");

    Fixtures env =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1"))
            .tenants("acme")
            .binding("cache", "kustomize", "redis", REDIS_BASE, List.of(), target("acme", "qa"));
    assertThatThrownBy(env::plan)
        .hasMessage(
            "binding cache targets environment qa, which is not an environment of project shop");
  }

  @Test
  void refusesABaseWithoutKustomizationAndUnsafePaths() {
    Fixtures noKustomization =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1"))
            .tenants("acme")
            .binding(
                "cache",
                "kustomize",
                "redis",
                Map.of("deployment.yaml", "kind: Deployment\n"),
                List.of(),
                target("acme", "production"));
    assertThatThrownBy(noKustomization::plan)
        .hasMessage("Kustomize base redis (binding cache) has no kustomization.yaml at its top");

    Fixtures unsafe =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1"))
            .tenants("acme")
            .binding(
                "cache",
                "kustomize",
                "redis",
                Map.of("kustomization.yaml", "resources: []\n", "../../escape.yaml", "x: 1\n"),
                List.of(),
                target("acme", "production"));
    assertThatThrownBy(unsafe::plan)
        .hasMessageStartingWith(
            "file path '../../escape.yaml' of Kustomize base redis must not contain '..'");
  }

  @Test
  void refusesABundleFileThatIsNotYaml() {
    Fixtures f =
        Fixtures.project()
            .environment("production", PATTERN, cluster("eu-1"))
            .tenants("acme")
            .binding(
                "settings",
                "manifests",
                "settings-bundle",
                Map.of("bad.yaml", "a: [unclosed\n"),
                List.of(),
                target("acme", "production"));

    assertThatThrownBy(f::plan)
        .isInstanceOf(PlanException.class)
        .hasMessageStartingWith("file bad.yaml of bundle settings-bundle is not valid YAML: ");
  }

  private static Unit find(List<Unit> units, String path) {
    return units.stream()
        .filter(u -> u.path().equals(path))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    "no unit at " + path + " in " + units.stream().map(Unit::path).toList()));
  }
}

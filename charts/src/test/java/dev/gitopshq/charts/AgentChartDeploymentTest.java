package dev.gitopshq.charts;

import static dev.gitopshq.charts.Chart.NAMESPACE;
import static dev.gitopshq.charts.Chart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.Capability;
import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.config.IdentityStoreMode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The agent's Deployment and its configuration objects, checked against what the agent reads. */
@Tag("integration") // runs the helm binary
class AgentChartDeploymentTest {
  static final Chart CHART = Chart.agent();
  static final String TOKEN = "ghqa_reg_" + "0123456789abcdef".repeat(4);

  /** The variables the agent reads, as listed in agent/README.md. */
  static final Set<String> DOCUMENTED_AGENT_VARIABLES =
      Set.of(
          "GITOPSHQ_HUB_ADDRESS",
          "GITOPSHQ_REGISTRATION_TOKEN",
          "GITOPSHQ_IDENTITY_STORE_MODE",
          "GITOPSHQ_AGENT_TOKEN_PATH",
          "GITOPSHQ_IDENTITY_SECRET_NAME",
          "GITOPSHQ_IDENTITY_SECRET_NAMESPACE",
          "GITOPSHQ_CLUSTER_NAME",
          "GITOPSHQ_DISPLAY_NAME",
          "GITOPSHQ_PROVIDER",
          "GITOPSHQ_REGION",
          "GITOPSHQ_ENVIRONMENT",
          "GITOPSHQ_CLUSTER_LABELS",
          "GITOPSHQ_CAPABILITIES",
          "GITOPSHQ_STATUS_INTERVAL_SECONDS",
          "GITOPSHQ_HUB_INSECURE",
          "GITOPSHQ_HUB_PLAINTEXT",
          "GITOPSHQ_HUB_CA_FILE",
          "GITOPSHQ_RECONNECT_MAX_SECONDS");

  /** Every environment variable name AgentConfig declares (its public String constants). */
  static Set<String> agentConfigVariables() {
    return java.util.stream.Stream.of(AgentConfig.class, DirectDeployConfig.class)
        .flatMap(c -> Arrays.stream(c.getFields()))
        .filter(f -> Modifier.isStatic(f.getModifiers()) && f.getType() == String.class)
        .map(AgentConfigFieldReader::read)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  static final class AgentConfigFieldReader {
    static String read(Field f) {
      try {
        return (String) f.get(null);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Everything switched on: every variable the chart can set is set. */
  static Map<String, Object> everything() {
    Map<String, Object> v =
        values(
            "registrationToken", TOKEN,
            "hub.address", "hub.example.com:443",
            "hub.statusIntervalSeconds", 15,
            "hub.reconnectMaxSeconds", 120,
            "agent.clusterName", "prod-eu",
            "agent.displayName", "Production, EU",
            "agent.provider", "eks",
            "agent.region", "eu-west-1",
            "agent.environment", "production",
            "cluster.labels.tier", "production",
            "rbac.profile", "readwrite",
            "tls.insecure", true,
            "proxy.httpProxy", "http://proxy.corp:3128",
            "proxy.httpsProxy", "http://proxy.corp:3128",
            "proxy.noProxy", ".corp.example,10.0.0.0/8",
            "metrics.enabled", true);
    for (Capability c : Capability.values()) {
      Chart.put(v, "capabilities." + valueKey(c), true);
    }
    return v;
  }

  /**
   * The chart's value key for a capability: its seed name in camel case (argocd.read ->
   * argocdRead).
   */
  static String valueKey(Capability c) {
    String[] parts = c.seedName().split("\\.");
    StringBuilder key = new StringBuilder(parts[0]);
    for (int i = 1; i < parts.length; i++) {
      key.append(parts[i].substring(0, 1).toUpperCase(Locale.ROOT)).append(parts[i].substring(1));
    }
    return key.toString();
  }

  @Test
  void theDocumentedVariablesAreTheOnesTheAgentDeclares() {
    assertThat(agentConfigVariables()).containsAll(DOCUMENTED_AGENT_VARIABLES);
  }

  @Test
  void everyVariableTheChartSetsIsOneTheAgentReads() {
    Set<String> known = new TreeSet<>(agentConfigVariables());
    // The agent reads the lowercase proxy forms too; JAVA_TOOL_OPTIONS is the JVM's own.
    known.addAll(
        Set.of(
            "http_proxy",
            "https_proxy",
            "no_proxy",
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "NO_PROXY",
            "JAVA_TOOL_OPTIONS"));

    for (Map<String, Object> v :
        List.of(
            values(),
            everything(),
            values("persistence.type", "pvc"),
            values(
                "tls.caBundle",
                "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
                "tls.plaintext",
                false,
                "javaOptions",
                "-XX:MaxRAMPercentage=75"))) {
      assertThat(CHART.render(v).env().keySet()).as("env for %s", v).isSubsetOf(known);
    }
    assertThat(CHART.render(everything()).env().keySet())
        .contains(
            "POD_NAMESPACE",
            "GITOPSHQ_HUB_ADDRESS",
            "GITOPSHQ_REGISTRATION_TOKEN",
            "GITOPSHQ_CLUSTER_NAME",
            "GITOPSHQ_DISPLAY_NAME",
            "GITOPSHQ_PROVIDER",
            "GITOPSHQ_REGION",
            "GITOPSHQ_ENVIRONMENT",
            "GITOPSHQ_CAPABILITIES",
            "GITOPSHQ_STATUS_INTERVAL_SECONDS",
            "GITOPSHQ_RECONNECT_MAX_SECONDS",
            "GITOPSHQ_IDENTITY_STORE_MODE",
            "GITOPSHQ_IDENTITY_SECRET_NAME",
            "GITOPSHQ_HUB_INSECURE");
  }

  @Test
  void theAgentAcceptsTheDefaultConfiguration() {
    Rendered r = CHART.render(values("registrationToken", TOKEN));
    Map<String, String> env = r.resolvedEnv();

    AgentConfig config = AgentConfig.fromEnv(env);
    assertThat(config.hubAddress()).isEqualTo("gitopshq.example.internal:50051");
    assertThat(config.registrationToken()).contains(TOKEN);
    assertThat(config.clusterName()).isEqualTo("default");
    assertThat(config.capabilities())
        .containsExactly("observe", "diagnostics.read", "argocd.read", "token.rotate");
    assertThat(config.identityStoreMode()).isEqualTo(IdentityStoreMode.SECRET);
    assertThat(config.identitySecretName()).isEqualTo("gitopshq-agent-identity");
    assertThat(config.identitySecretNamespace()).isEqualTo(NAMESPACE);
    assertThat(config.statusIntervalSeconds()).hasValue(30);
    assertThat(config.reconnectMaxSeconds()).isEqualTo(60);
    assertThat(config.hubInsecure()).isFalse();
    assertThat(config.hubPlaintext()).isFalse();
  }

  @Test
  void theAgentAcceptsEverythingSwitchedOn() {
    Map<String, String> env = new HashMap<>(CHART.render(everything()).resolvedEnv());
    // Kubernetes expands $(KUBERNETES_SERVICE_HOST) in the pod; here it stays literal.
    env.replaceAll((k, v) -> v.replace("$(KUBERNETES_SERVICE_HOST)", "10.96.0.1"));

    AgentConfig config = AgentConfig.fromEnv(env);
    assertThat(config.hubAddress()).isEqualTo("hub.example.com:443");
    assertThat(config.clusterName()).isEqualTo("prod-eu");
    assertThat(config.displayName()).isEqualTo("Production, EU");
    assertThat(config.provider()).isEqualTo("eks");
    assertThat(config.region()).isEqualTo("eu-west-1");
    assertThat(config.environment()).isEqualTo("production");
    assertThat(config.statusIntervalSeconds()).hasValue(15);
    assertThat(config.reconnectMaxSeconds()).isEqualTo(120);
    assertThat(config.hubInsecure()).isTrue();
  }

  @Test
  void credentialSyncValuesReachTheAgentOnlyWithTheCapability() {
    Map<String, Object> on =
        values(
            "rbac.profile",
            "readwrite",
            "capabilities.credentialSync",
            true,
            "credentialSync.targets",
            List.of("apps", "payments"));
    Map<String, String> env = CHART.render(on).resolvedEnv();
    assertThat(env)
        .containsEntry("GITOPSHQ_CREDENTIAL_SYNC_MODE", "mirrored")
        .containsEntry("GITOPSHQ_CREDENTIAL_SYNC_TARGETS", "apps,payments");
    Map<String, String> agentEnv = new HashMap<>(env);
    agentEnv.replaceAll((k, v) -> v.replace("$(KUBERNETES_SERVICE_HOST)", "10.96.0.1"));
    AgentConfig config = AgentConfig.fromEnv(agentEnv);
    assertThat(config.credentialSyncTargets()).containsExactly("apps", "payments");
    assertThat(CHART.render().resolvedEnv())
        .doesNotContainKeys("GITOPSHQ_CREDENTIAL_SYNC_MODE", "GITOPSHQ_CREDENTIAL_SYNC_TARGETS");
    assertThat(CHART.notes(on)).doesNotContain("credentialSync");
  }

  @Test
  void directDeployValuesReachTheAgentOnlyWhenDirectDeployIsInEffect() {
    Map<String, Object> on = everything();
    Chart.put(on, "directDeploy.fieldManager", "platform-ops");
    Chart.put(on, "directDeploy.defaultNamespace", "apps");
    DirectDeployConfig direct = DirectDeployConfig.fromEnv(CHART.render(on).resolvedEnv());
    assertThat(direct.fieldManager()).isEqualTo("platform-ops");
    assertThat(direct.defaultNamespace()).isEqualTo("apps");

    // The defaults: the documented field manager, no default namespace.
    DirectDeployConfig defaults =
        DirectDeployConfig.fromEnv(CHART.render(everything()).resolvedEnv());
    assertThat(defaults.fieldManager()).isEqualTo("gitopshq-agent");
    assertThat(defaults.defaultNamespace()).isEmpty();

    // readonly: direct deploy is not in effect, and the values are not rendered.
    Map<String, Object> readonly = everything();
    Chart.put(readonly, "rbac.profile", "readonly");
    Chart.put(readonly, "directDeploy.defaultNamespace", "apps");
    assertThat(CHART.render(readonly).env().keySet())
        .doesNotContain(DirectDeployConfig.FIELD_MANAGER, DirectDeployConfig.DEFAULT_NAMESPACE);
  }

  @Test
  void capabilitiesMapToSeedNamesInTheDocumentedOrder() {
    String all =
        Arrays.stream(Capability.values())
            .map(Capability::seedName)
            .collect(Collectors.joining(","));
    assertThat(all)
        .isEqualTo(
            "observe,diagnostics.read,argocd.read,argocd.write,direct.deploy,"
                + "kubernetes.restart,kubernetes.scale,credential.sync,token.rotate,"
                // Not in the product documents: the hub wires each binding's Flux or Argo CD.
                + "adapter.wire");

    assertThat(CHART.render(everything()).env().get("GITOPSHQ_CAPABILITIES").getValue())
        .isEqualTo(all);
    assertThat(CHART.render().env().get("GITOPSHQ_CAPABILITIES").getValue())
        .isEqualTo("observe,diagnostics.read,argocd.read,token.rotate");
    assertThat(
            CHART
                .render(
                    values(
                        "rbac.profile",
                        "readwrite",
                        "capabilities.kubernetesScale",
                        true,
                        "capabilities.argocdRead",
                        false))
                .env()
                .get("GITOPSHQ_CAPABILITIES")
                .getValue())
        .isEqualTo("observe,diagnostics.read,kubernetes.scale,token.rotate");
  }

  @Test
  void readonlyDoesNotReportWriteCapabilities() {
    Map<String, Object> v = everything();
    Chart.put(v, "rbac.profile", "readonly");

    assertThat(CHART.render(v).env().get("GITOPSHQ_CAPABILITIES").getValue())
        .isEqualTo("observe,diagnostics.read,argocd.read,token.rotate");
  }

  @Test
  void noCapabilityInEffectIsRefused() {
    Map<String, Object> v = values();
    for (Capability c : Capability.values()) {
      Chart.put(v, "capabilities." + valueKey(c), false);
    }
    Chart.put(v, "capabilities.argocdWrite", true);

    assertThat(CHART.renderError(v))
        .contains("no capability is in effect", "rbac.profile=readwrite");
  }

  @Test
  void oneHardenedReplicaThatIsReplacedNotRolled() {
    Deployment d = CHART.render().deployment();
    PodSpec pod = d.getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);

    assertThat(d.getSpec().getReplicas()).isEqualTo(1);
    assertThat(d.getSpec().getStrategy().getType()).isEqualTo("Recreate");
    assertThat(d.getSpec().getSelector().getMatchLabels())
        .containsOnly(
            entry("app.kubernetes.io/name", "gitopshq-agent"),
            entry("app.kubernetes.io/instance", "gitopshq-agent"));
    assertThat(d.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(d.getSpec().getSelector().getMatchLabels());

    PodSecurityContext psc = pod.getSecurityContext();
    assertThat(psc.getRunAsNonRoot()).isTrue();
    assertThat(psc.getRunAsUser()).isEqualTo(65532L);
    assertThat(psc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    SecurityContext sc = c.getSecurityContext();
    assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
    assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
    assertThat(sc.getRunAsNonRoot()).isTrue();
    assertThat(sc.getRunAsUser()).isEqualTo(65532L);
    assertThat(sc.getPrivileged()).isNotEqualTo(Boolean.TRUE);
    assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(sc.getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(pod.getAutomountServiceAccountToken()).isTrue();
    assertThat(pod.getServiceAccountName()).isEqualTo("gitopshq-agent");
    assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
    assertThat(pod.getVolumes()).allSatisfy(vol -> assertThat(vol.getHostPath()).isNull());
    // The agent dials out and never listens.
    assertThat(c.getPorts()).isNullOrEmpty();

    assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(c.getResources().getLimits()).containsKeys("cpu", "memory");
    assertThat(c.getImage()).isEqualTo("ghcr.io/gitopshq-io/gitopshq-agent:0.1.0");
    // A read-only root needs a writable /tmp for the JVM.
    assertThat(c.getVolumeMounts()).extracting(VolumeMount::getMountPath).contains("/tmp");

    ServiceAccount sa = CHART.render().get(ServiceAccount.class, "gitopshq-agent");
    assertThat(sa.getAutomountServiceAccountToken()).isTrue();
  }

  @Test
  void theRegistrationTokenTravelsInASecret() {
    Rendered r = CHART.render(values("registrationToken", TOKEN));

    assertThat(r.secretValue("gitopshq-agent-registration", "GITOPSHQ_REGISTRATION_TOKEN"))
        .isEqualTo(TOKEN);
    EnvVar var = r.env().get("GITOPSHQ_REGISTRATION_TOKEN");
    assertThat(var.getValue()).isNull();
    assertThat(var.getValueFrom().getSecretKeyRef().getName())
        .isEqualTo("gitopshq-agent-registration");
    assertThat(r.manifest())
        .containsOnlyOnce(java.util.Base64.getEncoder().encodeToString(TOKEN.getBytes()))
        .doesNotContain(TOKEN);
  }

  @Test
  void withoutATokenThereIsNoRegistrationSecret() {
    Rendered r = CHART.render();

    assertThat(r.all(Secret.class)).isEmpty();
    assertThat(r.env()).doesNotContainKey("GITOPSHQ_REGISTRATION_TOKEN");

    Rendered existing = CHART.render(values("existingRegistrationSecret", "my-token"));
    assertThat(existing.all(Secret.class)).isEmpty();
    assertThat(
            existing
                .env()
                .get("GITOPSHQ_REGISTRATION_TOKEN")
                .getValueFrom()
                .getSecretKeyRef()
                .getName())
        .isEqualTo("my-token");
  }

  @Test
  void theHubAddressComesFromTheHubConfigMap() {
    Rendered r = CHART.render(values("hub.address", "agent.example.com:50051"));

    assertThat(r.get(ConfigMap.class, "gitopshq-agent-hub").getData())
        .containsExactly(entry("GITOPSHQ_HUB_ADDRESS", "agent.example.com:50051"));
    assertThat(r.env().get("GITOPSHQ_HUB_ADDRESS").getValueFrom().getConfigMapKeyRef().getName())
        .isEqualTo("gitopshq-agent-hub");
    // A changed address rolls the pod.
    assertThat(
            r.deployment()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get("checksum/hub"))
        .isNotEqualTo(
            CHART
                .render()
                .deployment()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get("checksum/hub"));
  }

  @Test
  void theClusterLabelsReachTheAgentAsTheChartSetsThem() {
    Map<String, Object> v = values("registrationToken", TOKEN);
    Map<String, Object> labels = new LinkedHashMap<>();
    labels.put("tier", "production");
    labels.put("topology.kubernetes.io/zone", "eu-1a");
    labels.put("replicas", "3");
    Chart.put(v, "cluster.labels", labels);

    AgentConfig config = AgentConfig.fromEnv(CHART.render(v).resolvedEnv());

    assertThat(config.clusterLabels())
        .containsOnly(
            Map.entry("tier", "production"),
            Map.entry("topology.kubernetes.io/zone", "eu-1a"),
            Map.entry("replicas", "3"));
    assertThat(
            AgentConfig.fromEnv(CHART.render(values("registrationToken", TOKEN)).resolvedEnv())
                .clusterLabels())
        .isEmpty();
  }

  @Test
  void emptyLabelsAreNotSet() {
    assertThat(CHART.render().env())
        .doesNotContainKeys(
            "GITOPSHQ_DISPLAY_NAME",
            "GITOPSHQ_PROVIDER",
            "GITOPSHQ_REGION",
            "GITOPSHQ_ENVIRONMENT",
            "GITOPSHQ_CLUSTER_LABELS",
            "GITOPSHQ_HUB_INSECURE",
            "GITOPSHQ_HUB_PLAINTEXT",
            "GITOPSHQ_HUB_CA_FILE",
            "HTTPS_PROXY",
            "JAVA_TOOL_OPTIONS");
  }

  @Test
  void secretPersistenceNamesTheIdentitySecret() {
    Rendered r = CHART.render();
    Map<String, String> env = r.resolvedEnv();

    assertThat(env)
        .containsEntry("GITOPSHQ_IDENTITY_STORE_MODE", "secret")
        .containsEntry("GITOPSHQ_IDENTITY_SECRET_NAME", "gitopshq-agent-identity")
        .containsEntry("POD_NAMESPACE", NAMESPACE)
        .doesNotContainKey("GITOPSHQ_AGENT_TOKEN_PATH");
    assertThat(r.all(PersistentVolumeClaim.class)).isEmpty();
    // The agent creates the identity Secret itself, so helm uninstall leaves it behind.
    assertThat(r.all(Secret.class)).isEmpty();
    assertThat(r.container().getVolumeMounts())
        .extracting(VolumeMount::getName)
        .containsExactly("tmp");

    assertThat(CHART.render(values("persistence.secretName", "agent-id")).resolvedEnv())
        .containsEntry("GITOPSHQ_IDENTITY_SECRET_NAME", "agent-id");
    assertThat(CHART.render("edge", "agents", values()).resolvedEnv())
        .containsEntry("GITOPSHQ_IDENTITY_SECRET_NAME", "edge-gitopshq-agent-identity")
        .containsEntry("POD_NAMESPACE", "agents");
  }

  @Test
  void pvcPersistenceKeepsTheIdentityFileOnAClaim() {
    Rendered r =
        CHART.render(
            values(
                "persistence.type",
                "pvc",
                "persistence.size",
                "64Mi",
                "persistence.storageClass",
                "fast",
                "agent.tokenPath",
                "/data/identity/agent.json"));

    PersistentVolumeClaim pvc = r.get(PersistentVolumeClaim.class, "gitopshq-agent-identity");
    assertThat(pvc.getSpec().getResources().getRequests())
        .containsEntry("storage", new Quantity("64Mi"));
    assertThat(pvc.getSpec().getStorageClassName()).isEqualTo("fast");
    assertThat(pvc.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
    assertThat(pvc.getMetadata().getAnnotations()).containsEntry("helm.sh/resource-policy", "keep");

    assertThat(r.resolvedEnv())
        .containsEntry("GITOPSHQ_IDENTITY_STORE_MODE", "file")
        .containsEntry("GITOPSHQ_AGENT_TOKEN_PATH", "/data/identity/agent.json")
        .doesNotContainKey("GITOPSHQ_IDENTITY_SECRET_NAME");
    Volume identity = volume(r, "identity");
    assertThat(identity.getPersistentVolumeClaim().getClaimName())
        .isEqualTo("gitopshq-agent-identity");
    assertThat(mount(r, "identity").getMountPath()).isEqualTo("/data/identity");
    // The volume must be writable by the agent's non-root user.
    assertThat(r.deployment().getSpec().getTemplate().getSpec().getSecurityContext().getFsGroup())
        .isEqualTo(65532L);
  }

  @Test
  void disabledPersistenceUsesAnEmptyDir() {
    Rendered r = CHART.render(values("persistence.enabled", false));

    assertThat(r.all(PersistentVolumeClaim.class)).isEmpty();
    assertThat(r.resolvedEnv())
        .containsEntry("GITOPSHQ_IDENTITY_STORE_MODE", "file")
        .containsEntry("GITOPSHQ_AGENT_TOKEN_PATH", "/var/lib/gitopshq/identity/agent.json");
    assertThat(volume(r, "identity").getEmptyDir()).isNotNull();
    assertThat(mount(r, "identity").getMountPath()).isEqualTo("/var/lib/gitopshq/identity");
  }

  @Test
  void insecureTlsAndPlaintextAreSeparateSwitches() {
    assertThat(CHART.render(values("tls.insecure", true)).resolvedEnv())
        .containsEntry("GITOPSHQ_HUB_INSECURE", "true")
        .doesNotContainKey("GITOPSHQ_HUB_PLAINTEXT");
    assertThat(CHART.render(values("tls.plaintext", true)).resolvedEnv())
        .containsEntry("GITOPSHQ_HUB_PLAINTEXT", "true")
        .doesNotContainKey("GITOPSHQ_HUB_INSECURE");
    assertThat(CHART.renderError(values("tls.insecure", true, "tls.plaintext", true)))
        .contains("tls.insecure and tls.plaintext cannot both be true");
  }

  @Test
  void aCaBundleIsMountedAndNamedInGitopshqHubCaFile() {
    String pem = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----\n";
    Rendered r = CHART.render(values("tls.caBundle", pem));

    assertThat(r.get(ConfigMap.class, "gitopshq-agent-hub-ca").getData().get("ca.crt"))
        .isEqualTo(pem);
    assertThat(r.resolvedEnv())
        .containsEntry("GITOPSHQ_HUB_CA_FILE", "/etc/gitopshq/hub-ca/ca.crt");
    assertThat(volume(r, "hub-ca").getConfigMap().getName()).isEqualTo("gitopshq-agent-hub-ca");
    VolumeMount m = mount(r, "hub-ca");
    assertThat(Path.of(m.getMountPath()).resolve("ca.crt"))
        .hasToString("/etc/gitopshq/hub-ca/ca.crt");
    assertThat(m.getReadOnly()).isTrue();

    Rendered existing =
        CHART.render(
            values("tls.existingCaSecret", "corp-ca", "tls.existingCaSecretKey", "bundle.pem"));
    assertThat(volume(existing, "hub-ca").getSecret().getSecretName()).isEqualTo("corp-ca");
    assertThat(volume(existing, "hub-ca").getSecret().getItems())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.getKey()).isEqualTo("bundle.pem");
              assertThat(i.getPath()).isEqualTo("ca.crt");
            });
    assertThat(existing.resolvedEnv())
        .containsEntry("GITOPSHQ_HUB_CA_FILE", "/etc/gitopshq/hub-ca/ca.crt");

    assertThat(CHART.renderError(values("tls.caBundle", pem, "tls.plaintext", true)))
        .contains("tls.plaintext=true disables TLS");
  }

  @Test
  void proxiesAreSetInBothCasesAndBypassTheKubernetesApi() {
    Rendered r =
        CHART.render(
            values(
                "proxy.httpProxy",
                "http://proxy.corp:3128",
                "proxy.httpsProxy",
                "http://proxy.corp:3129",
                "proxy.noProxy",
                ".corp.example,10.0.0.0/8"));
    Map<String, String> env = r.resolvedEnv();

    assertThat(env)
        .containsEntry("HTTP_PROXY", "http://proxy.corp:3128")
        .containsEntry("http_proxy", "http://proxy.corp:3128")
        .containsEntry("HTTPS_PROXY", "http://proxy.corp:3129")
        .containsEntry("https_proxy", "http://proxy.corp:3129");
    String noProxy = ".corp.example,10.0.0.0/8,kubernetes.default.svc,$(KUBERNETES_SERVICE_HOST)";
    assertThat(env).containsEntry("NO_PROXY", noProxy).containsEntry("no_proxy", noProxy);
    // Kubernetes expands $(VAR) only for variables defined before it or service variables.
    assertThat(List.copyOf(env.keySet()).indexOf("NO_PROXY")).isPositive();

    Map<String, String> httpsOnly =
        CHART.render(values("proxy.httpsProxy", "http://proxy.corp:3129")).resolvedEnv();
    assertThat(httpsOnly)
        .containsKeys("HTTPS_PROXY", "https_proxy", "NO_PROXY")
        .doesNotContainKeys("HTTP_PROXY", "http_proxy");
    assertThat(httpsOnly.get("NO_PROXY"))
        .isEqualTo("kubernetes.default.svc,$(KUBERNETES_SERVICE_HOST)");
    assertThat(CHART.render().env())
        .doesNotContainKeys("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "no_proxy");
  }

  @Test
  void networkPolicyIsEgressOnly() {
    assertThat(CHART.render().all(NetworkPolicy.class)).isEmpty();

    Rendered r =
        CHART.render(
            values(
                "networkPolicy.enabled",
                true,
                "hub.address",
                "agent.example.com:443",
                "networkPolicy.hubCidrs",
                List.of("203.0.113.0/24")));
    NetworkPolicy np = r.get(NetworkPolicy.class, "gitopshq-agent");

    assertThat(np.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
    assertThat(np.getSpec().getIngress()).isEmpty();
    assertThat(np.getSpec().getPodSelector().getMatchLabels())
        .isEqualTo(r.deployment().getSpec().getSelector().getMatchLabels());
    List<NetworkPolicyEgressRule> egress = np.getSpec().getEgress();
    assertThat(egress)
        .anySatisfy(rule -> assertThat(ports(rule)).containsExactlyInAnyOrder("UDP/53", "TCP/53"));
    assertThat(egress)
        .anySatisfy(
            rule -> {
              assertThat(ports(rule)).containsExactly("TCP/443");
              assertThat(rule.getTo())
                  .extracting(p -> p.getIpBlock().getCidr())
                  .containsExactly("203.0.113.0/24");
            });
    assertThat(egress)
        .anySatisfy(rule -> assertThat(ports(rule)).containsExactly("TCP/443", "TCP/6443"));

    NetworkPolicy defaultPort =
        CHART
            .render(values("networkPolicy.enabled", true))
            .get(NetworkPolicy.class, "gitopshq-agent");
    assertThat(defaultPort.getSpec().getEgress())
        .anySatisfy(rule -> assertThat(ports(rule)).containsExactly("TCP/50051"));
  }

  @Test
  void theMetricsPortIsTheOnlyWayInAndOnlyWhenEnabled() {
    Rendered off = CHART.render(values("networkPolicy.enabled", true));
    assertThat(off.env()).doesNotContainKey("GITOPSHQ_METRICS_PORT");
    assertThat(off.deployment().getSpec().getTemplate().getSpec().getContainers().get(0).getPorts())
        .isNullOrEmpty();
    assertThat(off.get(NetworkPolicy.class, "gitopshq-agent").getSpec().getIngress()).isEmpty();

    Rendered on =
        CHART.render(
            values(
                "networkPolicy.enabled",
                true,
                "metrics.enabled",
                true,
                "metrics.from",
                List.of(
                    Map.of(
                        "namespaceSelector",
                        Map.of(
                            "matchLabels", Map.of("kubernetes.io/metadata.name", "monitoring"))))));
    assertThat(on.env().get("GITOPSHQ_METRICS_PORT").getValue()).isEqualTo("9464");
    assertThat(on.deployment().getSpec().getTemplate().getSpec().getContainers().get(0).getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("metrics");
              assertThat(p.getContainerPort()).isEqualTo(9464);
            });
    var ingress = on.get(NetworkPolicy.class, "gitopshq-agent").getSpec().getIngress();
    assertThat(ingress).singleElement();
    assertThat(ingress.get(0).getPorts())
        .extracting(p -> p.getProtocol() + "/" + p.getPort().getIntVal())
        .containsExactly("TCP/9464");
    assertThat(ingress.get(0).getFrom())
        .singleElement()
        .satisfies(
            peer ->
                assertThat(peer.getNamespaceSelector().getMatchLabels())
                    .containsEntry("kubernetes.io/metadata.name", "monitoring"));
  }

  @Test
  void anExistingServiceAccountIsBoundButNotCreated() {
    Rendered r =
        CHART.render(
            values("serviceAccount.create", false, "serviceAccount.name", "platform-agent"));

    assertThat(r.all(ServiceAccount.class)).isEmpty();
    assertThat(r.deployment().getSpec().getTemplate().getSpec().getServiceAccountName())
        .isEqualTo("platform-agent");
    assertThat(r.get(ClusterRoleBinding.class, "gitopshq-agent").getSubjects().get(0).getName())
        .isEqualTo("platform-agent");

    assertThat(CHART.renderError(values("serviceAccount.create", false)))
        .contains("serviceAccount.name is required");
  }

  @Test
  void extraEnvAndSchedulingValuesArePassedThrough() {
    Map<String, Object> v =
        values(
            "extraEnv", List.of(Map.of("name", "EXTRA_SETTING", "value", "1")),
            "nodeSelector", Map.of("kubernetes.io/os", "linux"),
            "tolerations", List.of(Map.of("key", "dedicated", "operator", "Exists")),
            "image.tag", "0.1.1");
    Rendered r = CHART.render(v);

    assertThat(r.env()).containsKey("EXTRA_SETTING");
    assertThat(r.deployment().getSpec().getTemplate().getSpec().getNodeSelector())
        .containsEntry("kubernetes.io/os", "linux");
    assertThat(r.deployment().getSpec().getTemplate().getSpec().getTolerations()).hasSize(1);
    assertThat(r.container().getImage()).endsWith(":0.1.1");
  }

  @Test
  void everyObjectIsLabelledAndNamespaced() {
    Map<String, Object> v = everything();
    Chart.put(v, "networkPolicy.enabled", true);
    Chart.put(v, "tls.insecure", false);
    Chart.put(v, "tls.caBundle", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----");
    Rendered r = CHART.render(v);

    assertThat(r.names())
        .contains(
            "ServiceAccount/gitopshq-system/gitopshq-agent",
            "Secret/gitopshq-system/gitopshq-agent-registration",
            "ConfigMap/gitopshq-system/gitopshq-agent-hub",
            "ConfigMap/gitopshq-system/gitopshq-agent-hub-ca",
            "ClusterRole/gitopshq-agent",
            "ClusterRoleBinding/gitopshq-agent",
            "Role/gitopshq-system/gitopshq-agent-identity",
            "Deployment/gitopshq-system/gitopshq-agent",
            "NetworkPolicy/gitopshq-system/gitopshq-agent");
    r.objects()
        .forEach(
            o -> {
              assertThat(o.getMetadata().getLabels())
                  .as(o.getKind())
                  .containsEntry("app.kubernetes.io/name", "gitopshq-agent")
                  .containsEntry("app.kubernetes.io/instance", "gitopshq-agent")
                  .containsEntry("app.kubernetes.io/managed-by", "Helm");
              if (!o.getKind().startsWith("Cluster")) {
                assertThat(o.getMetadata().getNamespace()).as(o.getKind()).isNotBlank();
              }
            });
  }

  static Volume volume(Rendered r, String name) {
    return r.deployment().getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name));
  }

  static VolumeMount mount(Rendered r, String name) {
    return r.container().getVolumeMounts().stream()
        .filter(m -> m.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume mount " + name));
  }

  static List<String> ports(NetworkPolicyEgressRule rule) {
    return rule.getPorts().stream().map(AgentChartDeploymentTest::port).toList();
  }

  static String port(NetworkPolicyPort p) {
    return p.getProtocol()
        + "/"
        + (p.getPort().getIntVal() != null ? p.getPort().getIntVal() : p.getPort().getStrVal());
  }
}

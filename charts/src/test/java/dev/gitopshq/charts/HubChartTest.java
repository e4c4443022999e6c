package dev.gitopshq.charts;

import static dev.gitopshq.charts.Chart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The hub chart: the environment it renders against the hub's configuration, secrets, probes. */
@Tag("integration") // runs the helm binary
class HubChartTest {
  static final Chart CHART = Chart.hub();
  static final String RELEASE = "gitopshq";
  static final String NS = "gitopshq";
  static final String OWNER_TOKEN = "ghq-bootstrap-owner-token-0123456789abcdef";

  /** Base64 of 32 bytes, as {@code openssl rand -base64 32} prints one. */
  static final String ENCRYPTION_KEY = "q83vASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4k=";

  /** A peer key, as {@code openssl rand -hex 32} prints one. */
  static final String PEER_KEY = "6f1c0e7d2a9b4c5d8e3f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d";

  static Rendered render(Map<String, Object> v) {
    return CHART.render(RELEASE, NS, v);
  }

  /** Every environment variable the hub's application.yml reads ({@code ${NAME:default}}). */
  static Set<String> hubVariables() throws IOException {
    Path yml =
        Chart.chartsDir().resolveSibling("api").resolve("src/main/resources/application.yml");
    Matcher m = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*):").matcher(Files.readString(yml));
    Set<String> names = new TreeSet<>();
    while (m.find()) {
      names.add(m.group(1));
    }
    assertThat(names)
        .as("variables in %s", yml)
        .contains("GITOPSHQ_DB_URL", "AGENT_GRPC_PUBLIC_ADDRESS");
    return names;
  }

  static Map<String, Object> everything() {
    return values(
        "database.url", "jdbc:postgresql://db.internal:5432/gitopshq",
        "database.user", "hub",
        "database.password", "s3cret-db",
        "database.poolSize", 30,
        "temporal.address", "temporal.internal:7233",
        "temporal.namespace", "gitopshq",
        "opa.url", "http://opa.internal:8181",
        "opa.token", "opa-token-0123456789abcdef",
        "opa.protocol", "http1",
        "agent.publicAddress", "agents.gitopshq.example.com:443",
        "agent.chart", "oci://registry.example.com/charts/gitopshq-agent",
        "agent.tls.existingSecret", "hub-grpc-tls",
        "agent.certificateValidity", "12h",
        "bootstrap.token", OWNER_TOKEN,
        "webhook.url", "https://hooks.example.com/gitopshq",
        "webhook.secret", "whsec-0123456789abcdef",
        "javaOptions", "-XX:MaxRAMPercentage=75",
        "publicUrl", "https://gitopshq.example.com",
        "persistence.accessModes", List.of("ReadWriteMany"),
        "persistence.storageClass", "efs",
        "encryptionKey.value", ENCRYPTION_KEY,
        "peerKey.value", PEER_KEY,
        "releases.approvalTimeout", "48h",
        "replicaCount", 3);
  }

  @Test
  void everyVariableTheChartSetsIsOneTheHubReads() throws IOException {
    Set<String> known = new TreeSet<>(hubVariables());
    known.add("JAVA_TOOL_OPTIONS");
    // Read by the render worker pool (RenderWorkers.Config), not through application.yml.
    known.addAll(
        List.of(
            "GITOPSHQ_RENDER_WORKERS",
            "GITOPSHQ_RENDER_TIMEOUT_SECONDS",
            "GITOPSHQ_RENDER_MEMORY_MIB",
            "GITOPSHQ_RENDER_WORKER_RENDERS"));

    assertThat(render(values()).env().keySet()).isSubsetOf(known);
    assertThat(render(everything()).env().keySet())
        .isSubsetOf(known)
        .contains(
            "GITOPSHQ_DB_URL",
            "GITOPSHQ_DB_USER",
            "GITOPSHQ_DB_PASSWORD",
            "GITOPSHQ_DB_POOL_SIZE",
            "TEMPORAL_ADDRESS",
            "TEMPORAL_NAMESPACE",
            "OPA_URL",
            "GITOPSHQ_OPA_TOKEN",
            "GITOPSHQ_OPA_PROTOCOL",
            "AGENT_GRPC_PUBLIC_ADDRESS",
            "AGENT_GRPC_TLS_CERT",
            "AGENT_GRPC_TLS_KEY",
            "GITOPSHQ_BOOTSTRAP_TOKEN",
            "GITOPSHQ_WEBHOOK_URL",
            "GITOPSHQ_WEBHOOK_SECRET",
            "GITOPSHQ_AGENT_CHART",
            "GITOPSHQ_HTTP_PORT",
            "AGENT_GRPC_PORT",
            "GITOPSHQ_DATA_DIR",
            "GITOPSHQ_GIT_STORAGE",
            "GITOPSHQ_GIT_ROOT",
            "GITOPSHQ_RENDER_DIR",
            "GITOPSHQ_PUBLIC_URL",
            "GITOPSHQ_ENCRYPTION_KEY",
            "GITOPSHQ_PEER_KEY",
            "GITOPSHQ_PEER_PORT",
            "GITOPSHQ_PEER_ADDRESS",
            "GITOPSHQ_RELEASE_APPROVAL_TIMEOUT");
  }

  @Test
  void valuesMapToTheHubsVariablesAndSecretsStayInSecrets() {
    Rendered r = render(everything());
    Map<String, String> env = r.resolvedEnv();

    assertThat(env)
        .contains(
            entry("GITOPSHQ_DB_URL", "jdbc:postgresql://db.internal:5432/gitopshq"),
            entry("GITOPSHQ_DB_USER", "hub"),
            entry("GITOPSHQ_DB_PASSWORD", "s3cret-db"),
            entry("GITOPSHQ_DB_POOL_SIZE", "30"),
            entry("TEMPORAL_ADDRESS", "temporal.internal:7233"),
            entry("TEMPORAL_NAMESPACE", "gitopshq"),
            entry("OPA_URL", "http://opa.internal:8181"),
            entry("GITOPSHQ_OPA_TOKEN", "opa-token-0123456789abcdef"),
            entry("GITOPSHQ_OPA_PROTOCOL", "http1"),
            entry("AGENT_GRPC_PUBLIC_ADDRESS", "agents.gitopshq.example.com:443"),
            entry("GITOPSHQ_AGENT_CHART", "oci://registry.example.com/charts/gitopshq-agent"),
            entry("GITOPSHQ_BOOTSTRAP_TOKEN", OWNER_TOKEN),
            entry("GITOPSHQ_WEBHOOK_URL", "https://hooks.example.com/gitopshq"),
            entry("GITOPSHQ_WEBHOOK_SECRET", "whsec-0123456789abcdef"),
            entry("GITOPSHQ_HTTP_PORT", "8080"),
            entry("AGENT_GRPC_PORT", "50051"),
            entry("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75"),
            entry("GITOPSHQ_PUBLIC_URL", "https://gitopshq.example.com"),
            entry("GITOPSHQ_ENCRYPTION_KEY", ENCRYPTION_KEY),
            entry("GITOPSHQ_PEER_KEY", PEER_KEY),
            entry("GITOPSHQ_PEER_PORT", "50052"),
            entry("GITOPSHQ_PEER_ADDRESS", "fieldRef:status.podIP"),
            entry("GITOPSHQ_RELEASE_APPROVAL_TIMEOUT", "48h"),
            entry("GITOPSHQ_AGENT_CERT_VALIDITY", "12h"));
    // The six secrets are references to one Secret, never plain values in the Deployment.
    for (String name :
        List.of(
            "GITOPSHQ_DB_PASSWORD",
            "GITOPSHQ_BOOTSTRAP_TOKEN",
            "GITOPSHQ_WEBHOOK_SECRET",
            "GITOPSHQ_ENCRYPTION_KEY",
            "GITOPSHQ_PEER_KEY",
            "GITOPSHQ_OPA_TOKEN")) {
      EnvVar var = r.env().get(name);
      assertThat(var.getValue()).as(name).isNull();
      assertThat(var.getValueFrom().getSecretKeyRef().getName())
          .as(name)
          .isEqualTo("gitopshq-gitopshq-hub");
    }
    assertThat(r.get(Secret.class, "gitopshq-gitopshq-hub").getData())
        .containsOnlyKeys(
            "GITOPSHQ_DB_PASSWORD",
            "GITOPSHQ_BOOTSTRAP_TOKEN",
            "GITOPSHQ_WEBHOOK_SECRET",
            "GITOPSHQ_ENCRYPTION_KEY",
            "GITOPSHQ_PEER_KEY",
            "GITOPSHQ_OPA_TOKEN");
    assertThat(r.deployment().getSpec().getReplicas()).isEqualTo(3);
  }

  @Test
  void existingSecretsAreReferencedAndNoSecretIsCreated() {
    Rendered r =
        render(
            values(
                "bootstrap.existingSecret",
                "hub-owner",
                "bootstrap.existingSecretKey",
                "owner-token",
                "webhook.url",
                "https://hooks.example.com/x",
                "webhook.existingSecret",
                "hub-webhook",
                "opa.existingSecret",
                "hub-opa",
                "opa.existingSecretKey",
                "opa-token"));

    assertThat(r.all(Secret.class)).isEmpty();
    Map<String, EnvVar> env = r.env();
    assertThat(env.get("GITOPSHQ_DB_PASSWORD").getValueFrom().getSecretKeyRef())
        .satisfies(
            ref -> {
              assertThat(ref.getName()).isEqualTo("gitopshq-database");
              assertThat(ref.getKey()).isEqualTo("password");
            });
    assertThat(env.get("GITOPSHQ_OPA_TOKEN").getValueFrom().getSecretKeyRef())
        .satisfies(
            ref -> {
              assertThat(ref.getName()).isEqualTo("hub-opa");
              assertThat(ref.getKey()).isEqualTo("opa-token");
            });
    assertThat(env.get("GITOPSHQ_BOOTSTRAP_TOKEN").getValueFrom().getSecretKeyRef())
        .satisfies(
            ref -> {
              assertThat(ref.getName()).isEqualTo("hub-owner");
              assertThat(ref.getKey()).isEqualTo("owner-token");
            });
    assertThat(env.get("GITOPSHQ_WEBHOOK_SECRET").getValueFrom().getSecretKeyRef().getName())
        .isEqualTo("hub-webhook");
  }

  @Test
  void optionalSettingsAreLeftToTheHubsDefaults() {
    Map<String, EnvVar> env = render(values()).env();

    assertThat(env)
        .doesNotContainKeys(
            "GITOPSHQ_BOOTSTRAP_TOKEN",
            "GITOPSHQ_WEBHOOK_URL",
            "GITOPSHQ_WEBHOOK_SECRET",
            "AGENT_GRPC_TLS_CERT",
            "AGENT_GRPC_TLS_KEY",
            "GITOPSHQ_AGENT_CHART",
            "JAVA_TOOL_OPTIONS",
            "GITOPSHQ_PUBLIC_URL",
            "GITOPSHQ_ENCRYPTION_KEY",
            "GITOPSHQ_PEER_KEY",
            "GITOPSHQ_PEER_PORT",
            "GITOPSHQ_PEER_ADDRESS",
            "GITOPSHQ_RELEASE_APPROVAL_TIMEOUT");
  }

  @Test
  void theGatewayCertificateIsMountedFromATlsSecret() {
    Rendered r = render(values("agent.tls.existingSecret", "hub-grpc-tls"));

    Volume tls =
        r.deployment().getSpec().getTemplate().getSpec().getVolumes().stream()
            .filter(v -> v.getName().equals("grpc-tls"))
            .findFirst()
            .orElseThrow();
    assertThat(tls.getSecret().getSecretName()).isEqualTo("hub-grpc-tls");
    VolumeMount mount =
        r.container().getVolumeMounts().stream()
            .filter(m -> m.getName().equals("grpc-tls"))
            .findFirst()
            .orElseThrow();
    assertThat(mount.getReadOnly()).isTrue();
    Map<String, EnvVar> env = r.env();
    assertThat(env.get("AGENT_GRPC_TLS_CERT").getValue())
        .isEqualTo(mount.getMountPath() + "/tls.crt");
    assertThat(env.get("AGENT_GRPC_TLS_KEY").getValue())
        .isEqualTo(mount.getMountPath() + "/tls.key");
    assertThat(tls.getSecret().getItems())
        .extracting(i -> i.getKey() + "->" + i.getPath())
        .containsExactlyInAnyOrder("tls.crt->tls.crt", "tls.key->tls.key");
  }

  @Test
  void probesUseTheActuatorHealthGroups() {
    Container c = render(values()).container();

    assertThat(c.getPorts())
        .extracting(ContainerPort::getName, ContainerPort::getContainerPort)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("http", 8080),
            org.assertj.core.groups.Tuple.tuple("grpc", 50051));
    assertProbe(c.getLivenessProbe(), "/actuator/health/liveness");
    assertProbe(c.getReadinessProbe(), "/actuator/health/readiness");
    assertProbe(c.getStartupProbe(), "/actuator/health/liveness");
  }

  static void assertProbe(Probe probe, String path) {
    assertThat(probe).isNotNull();
    assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
    assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("http");
  }

  @Test
  void theHubRunsHardenedWithoutKubernetesAccess() {
    Rendered r = render(values());
    PodSpec pod = r.deployment().getSpec().getTemplate().getSpec();
    Container c = r.container();

    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(c.getResources().getLimits()).containsKeys("memory");
    // /tmp, the data directory and the render scratch directory are the only writable paths.
    assertThat(c.getVolumeMounts())
        .extracting(VolumeMount::getMountPath)
        .containsExactlyInAnyOrder("/tmp", "/var/lib/gitopshq/data", "/var/lib/gitopshq-render");
    assertThat(r.env().get("GITOPSHQ_DATA_DIR").getValue()).isEqualTo("/var/lib/gitopshq/data");
    // The hub never talks to the Kubernetes API.
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(
            r.get(ServiceAccount.class, "gitopshq-gitopshq-hub").getAutomountServiceAccountToken())
        .isFalse();
    assertThat(r.all(ClusterRole.class)).isEmpty();
    assertThat(r.all(Role.class)).isEmpty();
  }

  @Test
  void theServiceCarriesRestAndGrpcAndTheIngressOnlyRest() {
    Rendered r =
        render(
            values(
                "ingress.enabled",
                true,
                "ingress.className",
                "nginx",
                "ingress.hosts",
                List.of(
                    Map.of(
                        "host",
                        "gitopshq.example.com",
                        "paths",
                        List.of(Map.of("path", "/", "pathType", "Prefix")))),
                "agentService.enabled",
                true,
                "agentService.loadBalancerSourceRanges",
                List.of("198.51.100.0/24")));

    Service svc = r.get(Service.class, "gitopshq-gitopshq-hub");
    assertThat(svc.getSpec().getPorts())
        .extracting(ServicePort::getName, ServicePort::getPort)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("http", 8080),
            org.assertj.core.groups.Tuple.tuple("grpc", 50051));
    assertThat(svc.getSpec().getSelector())
        .isEqualTo(r.deployment().getSpec().getSelector().getMatchLabels());

    Service agents = r.get(Service.class, "gitopshq-gitopshq-hub-agents");
    assertThat(agents.getSpec().getType()).isEqualTo("LoadBalancer");
    assertThat(agents.getSpec().getPorts())
        .extracting(ServicePort::getName)
        .containsExactly("grpc");
    assertThat(agents.getSpec().getLoadBalancerSourceRanges()).containsExactly("198.51.100.0/24");

    Ingress ing = r.get(Ingress.class, "gitopshq-gitopshq-hub");
    assertThat(ing.getSpec().getIngressClassName()).isEqualTo("nginx");
    assertThat(ing.getSpec().getRules())
        .singleElement()
        .satisfies(
            rule -> {
              assertThat(rule.getHost()).isEqualTo("gitopshq.example.com");
              assertThat(rule.getHttp().getPaths())
                  .singleElement()
                  .satisfies(
                      p -> {
                        assertThat(p.getBackend().getService().getName())
                            .isEqualTo("gitopshq-gitopshq-hub");
                        assertThat(p.getBackend().getService().getPort().getName())
                            .isEqualTo("http");
                      });
            });

    assertThat(render(values()).all(Ingress.class)).isEmpty();
    assertThat(render(values()).find(Service.class, "gitopshq-gitopshq-hub-agents")).isEmpty();
  }

  @Test
  void aChangedSecretRollsThePods() {
    Deployment a = render(values("database.password", "one")).deployment();
    Deployment b = render(values("database.password", "two")).deployment();

    assertThat(a.getSpec().getTemplate().getMetadata().getAnnotations().get("checksum/secret"))
        .isNotEqualTo(
            b.getSpec().getTemplate().getMetadata().getAnnotations().get("checksum/secret"));
  }

  @Test
  void refusesConfigurationsThatCannotWork() {
    assertThat(CHART.renderError(values("database.existingSecret", "")))
        .contains("set database.password or database.existingSecret");
    assertThat(CHART.renderError(values("bootstrap.token", "too-short")))
        .contains("/bootstrap/token");
    assertThat(CHART.renderError(values("plan", "platinum"))).contains("/plan");
    assertThat(CHART.renderError(values("agent.publicAddress", "localhost")))
        .contains("/agent/publicAddress");
    assertThat(CHART.renderError(values("webhook.secret", "0123456789abcdef")))
        .contains("webhook.url is empty");
    assertThat(
            CHART.renderError(
                values("webhook.url", "https://hooks.example.com/x", "webhook.secret", "short")))
        .contains("/webhook/secret");
    assertThat(CHART.renderError(values("tokens.rotationGrace", "fifteen minutes")))
        .contains("/tokens/rotationGrace");
    assertThat(CHART.renderError(values("opa.protocol", "http2"))).contains("/opa/protocol");
  }

  @Test
  void theRenderWorkersGetTheirLimitsFromTheValues() {
    Map<String, EnvVar> defaults = render(values()).env();
    assertThat(defaults.get("GITOPSHQ_RENDER_WORKERS").getValue()).isEqualTo("4");
    assertThat(defaults.get("GITOPSHQ_RENDER_TIMEOUT_SECONDS").getValue()).isEqualTo("30");
    assertThat(defaults.get("GITOPSHQ_RENDER_MEMORY_MIB").getValue()).isEqualTo("256");
    assertThat(defaults.get("GITOPSHQ_RENDER_WORKER_RENDERS").getValue()).isEqualTo("1000");
    assertThat(defaults).doesNotContainKeys("GOGC", "GOMEMLIMIT");
    Map<String, EnvVar> set =
        render(values("renderWorkers.workers", 2, "renderWorkers.memoryMiB", 512)).env();
    assertThat(set.get("GITOPSHQ_RENDER_WORKERS").getValue()).isEqualTo("2");
    assertThat(set.get("GITOPSHQ_RENDER_MEMORY_MIB").getValue()).isEqualTo("512");
    assertThat(CHART.renderError(values("renderWorkers.workers", 0)))
        .contains("/renderWorkers/workers");
    assertThat(CHART.renderError(values("renderWorkers.memoryMiB", "256Mi")))
        .contains("/renderWorkers/memoryMiB");
    assertThat(CHART.renderError(values("renderWorkers.timeoutSeconds", 0)))
        .contains("/renderWorkers/timeoutSeconds");
  }

  @Test
  void theHubSpeaksCleartextHttp2ToOpaUnlessToldOtherwise() {
    assertThat(render(values()).env().get("GITOPSHQ_OPA_PROTOCOL").getValue()).isEqualTo("h2c");
  }

  @Test
  void theReadmeDocumentsEveryValue() throws IOException {
    AgentChartValuesTest.assertReadmeDocumentsEveryValue(CHART);
  }
}

package dev.gitopshq.hub.chartrepo;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.cluster.InstallCommandChartIT;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The hub as the agent chart's Helm repository: its index and archive without a token, and the
 * install command a registration returns, run by the real {@code helm} against the real API server
 * (tools/dev/kube.sh), creating the agent's objects from the hub's repository.
 */
@Tag("e2e")
class ChartRepositoryIT {
  static HubTestSupport hub;
  static String base;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws IOException {
    int port = HubTestSupport.freePort();
    base = "http://127.0.0.1:" + port;
    hub =
        new HubTestSupport()
            .property("server.port", port)
            .property("gitopshq.git.public-url", base)
            .start();
  }

  @AfterAll
  static void stop() {
    hub.close();
  }

  static HttpResponse<byte[]> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + path)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void theIndexNamesTheArchiveByItsDigestAndNothingElseIsServed() throws Exception {
    HttpResponse<byte[]> index = get("/charts/index.yaml");
    assertThat(index.statusCode()).isEqualTo(200);
    Map<String, Object> doc = new Yaml().load(new String(index.body(), StandardCharsets.UTF_8));
    assertThat(doc).containsEntry("apiVersion", "v1");
    @SuppressWarnings("unchecked")
    Map<String, Object> entry =
        ((List<Map<String, Object>>)
                ((Map<String, Object>) doc.get("entries")).get("gitopshq-agent"))
            .get(0);
    String version = String.valueOf(entry.get("version"));
    @SuppressWarnings("unchecked")
    String url = ((List<String>) entry.get("urls")).get(0);
    assertThat(url).isEqualTo("gitopshq-agent-" + version + ".tgz");

    HttpResponse<byte[]> archive = get("/charts/" + url);
    assertThat(archive.statusCode()).isEqualTo(200);
    assertThat(entry.get("digest"))
        .isEqualTo(
            HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(archive.body())));
    List<String> names = new ArrayList<>();
    try (TarArchiveInputStream tar =
        new TarArchiveInputStream(new GZIPInputStream(new ByteArrayInputStream(archive.body())))) {
      for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
        names.add(e.getName());
      }
    }
    assertThat(names)
        .contains(
            "gitopshq-agent/Chart.yaml",
            "gitopshq-agent/values.yaml",
            "gitopshq-agent/templates/deployment.yaml");
    // The same bytes every time: the digest helm checks does not move while the hub runs.
    assertThat(get("/charts/" + url).body()).isEqualTo(archive.body());

    // Fuzz finding: a 404 here is the API's error body, as the document says, not an empty one.
    HttpResponse<byte[]> missing = get("/charts/gitopshq-hub-" + version + ".tgz");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
    assertThat(new String(missing.body(), StandardCharsets.UTF_8)).contains("\"not_found\"");
    assertThat(index.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/x-yaml"));
    assertThat(get("/charts/../application.yml").statusCode()).isIn(400, 404);
  }

  @Test
  void theInstallCommandInstallsTheAgentFromTheHubsRepositoryWithTheRealHelm() throws Exception {
    RealKube kube = RealKube.shared();
    String name = "helm-" + UUID.randomUUID().toString().substring(0, 8);
    Response r =
        hub.post(
            "/api/v2/clusters",
            OWNER_TOKEN,
            Map.of("name", name, "displayName", "Helm, from the hub", "environment", "staging"));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    String token = r.body().get("registrationToken").asText();
    String install = r.body().get("installCommand").asText();
    assertThat(install).contains("--repo " + base + "/charts");

    Path home = Files.createTempDirectory("helm-home");
    List<String> argv = new ArrayList<>(InstallCommandChartIT.shellWords(install));
    argv.set(0, helm());
    argv.addAll(List.of("--kubeconfig", kube.kubeconfig().toString()));
    try {
      Process p =
          new ProcessBuilder(argv).redirectErrorStream(true).directory(home.toFile()).start();
      p.getOutputStream().close();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(output).isZero();
      assertThat(output).doesNotContain(token);

      KubernetesClient k = kube.adminClient();
      Deployment d =
          k.apps().deployments().inNamespace("gitopshq-system").withName("gitopshq-agent").get();
      assertThat(d).isNotNull();
      assertThat(d.getMetadata().getLabels())
          .containsEntry(
              "helm.sh/chart", "gitopshq-agent-" + hub.bean(AgentChartRepository.class).version());
      Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
      assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
      assertThat(c.getSecurityContext().getRunAsNonRoot()).isTrue();
      assertThat(c.getVolumeMounts())
          .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/tmp"));
      assertThat(c.getEnv())
          .anySatisfy(
              e -> {
                assertThat(e.getName()).isEqualTo("GITOPSHQ_CLUSTER_NAME");
                assertThat(e.getValue()).isEqualTo(name);
              });
      Secret s =
          k.secrets().inNamespace("gitopshq-system").withName("gitopshq-agent-registration").get();
      assertThat(
              new String(
                  Base64.getDecoder().decode(s.getData().get("GITOPSHQ_REGISTRATION_TOKEN")),
                  StandardCharsets.UTF_8))
          .isEqualTo(token);
      assertThat(
              k.serviceAccounts().inNamespace("gitopshq-system").withName("gitopshq-agent").get())
          .isNotNull();
    } finally {
      new ProcessBuilder(
              helm(),
              "uninstall",
              "gitopshq-agent",
              "--namespace",
              "gitopshq-system",
              "--kubeconfig",
              kube.kubeconfig().toString())
          .directory(home.toFile())
          .redirectErrorStream(true)
          .start()
          .waitFor(60, TimeUnit.SECONDS);
    }
  }

  /** The real helm: GITOPSHQ_HELM_BIN, or what tools/bin-path.sh finds. */
  static String helm() throws Exception {
    String env = System.getenv("GITOPSHQ_HELM_BIN");
    if (env != null && !env.isBlank()) {
      return env;
    }
    Path root = Path.of("").toAbsolutePath();
    while (root != null && !Files.exists(root.resolve("tools/bin-path.sh"))) {
      root = root.getParent();
    }
    assertThat(root).as("the repository root (tools/bin-path.sh)").isNotNull();
    Process p = new ProcessBuilder(root.resolve("tools/bin-path.sh").toString(), "helm").start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertThat(p.waitFor()).as("helm is built (tools/build-tools.sh helm): " + out).isZero();
    return out;
  }
}

package dev.gitopshq.hub.cluster;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.render.HelmCli;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.chartrepo.AgentChartRepository;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The install command a real hub returns, run the way a user runs it: split by a POSIX shell, its
 * {@code --set-string} values parsed as Helm parses them, and charts/gitopshq-agent rendered with
 * exactly those values (the helm CLI, tools/helm). The agent's Deployment must carry what the hub
 * put in, including a display name with a comma, quotes and a backslash.
 */
public class InstallCommandChartIT {
  static HubTestSupport hub;

  @BeforeAll
  static void start() {
    hub =
        new HubTestSupport()
            .property("gitopshq.git.public-url", "http://hub.example.test:8080/")
            .start();
  }

  @AfterAll
  static void stop() {
    hub.close();
  }

  @Test
  void theInstallCommandRendersAnAgentWithTheRegisteredValues() throws IOException {
    String name = "chart-" + UUID.randomUUID().toString().substring(0, 8);
    String displayName = "Production, EU \"west\" 'blue' a\\b";
    Response r =
        hub.post(
            "/api/v2/clusters",
            OWNER_TOKEN,
            Map.of(
                "name",
                name,
                "displayName",
                displayName,
                "provider",
                "on-prem",
                "region",
                "eu-west-1",
                "environment",
                "production"));
    assertThat(r.status()).isEqualTo(201);
    String token = r.body().get("registrationToken").asText();
    String installCommand = r.body().get("installCommand").asText();

    List<String> argv = shellWords(installCommand);
    assertThat(argv.subList(0, 3)).containsExactly("helm", "upgrade", "--install");
    List<String> positional = new ArrayList<>();
    String namespace = null;
    String repo = null;
    String version = null;
    Map<String, Object> values = new LinkedHashMap<>();
    for (int i = 3; i < argv.size(); i++) {
      String arg = argv.get(i);
      switch (arg) {
        case "--namespace" -> namespace = argv.get(++i);
        case "--repo" -> repo = argv.get(++i);
        case "--version" -> version = argv.get(++i);
        case "--create-namespace" -> {}
        case "--set-string" -> parseSetString(argv.get(++i), values);
        default -> {
          assertThat(arg).as("an option the test does not know").doesNotStartWith("-");
          positional.add(arg);
        }
      }
    }
    // The agent chart from the hub's own Helm repository, pinned to the version it serves.
    assertThat(positional).containsExactly("gitopshq-agent", "gitopshq-agent");
    assertThat(repo).isEqualTo("http://hub.example.test:8080/charts");
    assertThat(version).isEqualTo(hub.bean(AgentChartRepository.class).version());
    assertThat(namespace).isEqualTo("gitopshq-system");

    Map<String, Map<String, Object>> objects = render(positional.get(0), namespace, values);

    Map<String, Object> secret = objects.get("Secret/gitopshq-agent-registration");
    assertThat(secret).as("registration Secret in %s", objects.keySet()).isNotNull();
    String stored =
        new String(
            Base64.getDecoder()
                .decode((String) map(secret, "data").get("GITOPSHQ_REGISTRATION_TOKEN")),
            StandardCharsets.UTF_8);
    assertThat(stored).isEqualTo(token);

    Map<String, Object> deployment = objects.get("Deployment/gitopshq-agent");
    assertThat(deployment).isNotNull();
    Map<String, Map<String, Object>> env = env(deployment);
    assertThat(map(env.get("GITOPSHQ_REGISTRATION_TOKEN"), "valueFrom", "secretKeyRef"))
        .containsEntry("name", "gitopshq-agent-registration")
        .containsEntry("key", "GITOPSHQ_REGISTRATION_TOKEN");
    Map<String, Object> hubRef =
        map(env.get("GITOPSHQ_HUB_ADDRESS"), "valueFrom", "configMapKeyRef");
    Map<String, Object> hubConfig = objects.get("ConfigMap/" + hubRef.get("name"));
    assertThat(map(hubConfig, "data")).containsEntry((String) hubRef.get("key"), hub.grpcAddress());
    assertThat(env.get("GITOPSHQ_CLUSTER_NAME")).containsEntry("value", name);
    assertThat(env.get("GITOPSHQ_DISPLAY_NAME")).containsEntry("value", displayName);
    assertThat(env.get("GITOPSHQ_PROVIDER")).containsEntry("value", "on-prem");
    assertThat(env.get("GITOPSHQ_REGION")).containsEntry("value", "eu-west-1");
    assertThat(env.get("GITOPSHQ_ENVIRONMENT")).containsEntry("value", "production");
    // The token itself only ever appears base64-encoded inside the Secret.
    assertThat(objects.toString()).doesNotContain(token);
  }

  @Test
  void theParsersHandleShellQuotingAndHelmEscapes() {
    assertThat(shellWords("a 'b c' 'it'\\''s' \"d \\\"e\\\"\" f\\ g"))
        .containsExactly("a", "b c", "it's", "d \"e\"", "f g");
    Map<String, Object> values = new LinkedHashMap<>();
    parseSetString("agent.displayName=Prod\\, EU \\\\ x,agent.region=eu", values);
    assertThat(values)
        .isEqualTo(Map.of("agent", Map.of("displayName", "Prod, EU \\ x", "region", "eu")));
  }

  // ---- a POSIX shell's word splitting and quote removal ----------------------------------------

  /** Splits a command line into words as sh does (no expansions: the hub never emits any). */
  public static List<String> shellWords(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == ' ' || c == '\t' || c == '\n') {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
        continue;
      }
      if (word == null) {
        word = new StringBuilder();
      }
      if (c == '\'') {
        int end = line.indexOf('\'', i + 1);
        assertThat(end).as("unterminated single quote in %s", line).isPositive();
        word.append(line, i + 1, end);
        i = end;
      } else if (c == '"') {
        for (i++; line.charAt(i) != '"'; i++) {
          char d = line.charAt(i);
          if (d == '\\' && "$`\"\\\n".indexOf(line.charAt(i + 1)) >= 0) {
            d = line.charAt(++i);
          }
          word.append(d);
        }
      } else if (c == '\\') {
        word.append(line.charAt(++i));
      } else {
        assertThat("$`|&;<>()*?[#~")
            .as("shell metacharacter in %s", line)
            .doesNotContain(String.valueOf(c));
        word.append(c);
      }
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }

  // ---- Helm's --set-string parsing (strvals) ----------------------------------------------------

  /**
   * Parses one {@code --set-string} argument the way Helm does: assignments separated by unescaped
   * commas, dotted keys for nesting, a backslash escaping the next character, every value a string.
   */
  @SuppressWarnings("unchecked")
  static void parseSetString(String arg, Map<String, Object> values) {
    int i = 0;
    while (i < arg.length()) {
      int eq = arg.indexOf('=', i);
      assertThat(eq).as("--set-string %s has no '='", arg).isPositive();
      String key = arg.substring(i, eq);
      assertThat(key).as("list or escaped keys are not expected").doesNotContain("[", "\\");
      StringBuilder value = new StringBuilder();
      for (i = eq + 1; i < arg.length() && arg.charAt(i) != ','; i++) {
        char c = arg.charAt(i);
        if (c == '\\') {
          c = arg.charAt(++i);
        }
        value.append(c);
      }
      i++;
      String[] path = key.split("\\.");
      Map<String, Object> node = values;
      for (int p = 0; p < path.length - 1; p++) {
        node =
            (Map<String, Object>)
                node.computeIfAbsent(path[p], k -> new LinkedHashMap<String, Object>());
      }
      node.put(path[path.length - 1], value.toString());
    }
  }

  // ---- rendering -----------------------------------------------------------------------------

  /** helm template with these values (as a JSON values file, so strings stay strings). */
  static Map<String, Map<String, Object>> render(
      String release, String namespace, Map<String, Object> values) throws IOException {
    Path valuesFile = Files.createTempFile("install-command-values", ".json");
    try {
      Files.writeString(valuesFile, new ObjectMapper().writeValueAsString(values));
      String manifest = HelmCli.template(agentChart(), release, namespace, valuesFile);
      Map<String, Map<String, Object>> objects = new LinkedHashMap<>();
      for (Object doc : new Yaml().loadAll(manifest)) {
        if (doc instanceof Map<?, ?> m) {
          @SuppressWarnings("unchecked")
          Map<String, Object> object = (Map<String, Object>) m;
          objects.put(object.get("kind") + "/" + map(object, "metadata").get("name"), object);
        }
      }
      return objects;
    } finally {
      Files.deleteIfExists(valuesFile);
    }
  }

  /** charts/gitopshq-agent, found from the working directory (the api module when run by Maven). */
  static Path agentChart() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path chart = dir.resolve("charts/gitopshq-agent");
      if (Files.isRegularFile(chart.resolve("Chart.yaml"))) {
        return chart;
      }
    }
    throw new IllegalStateException(
        "charts/gitopshq-agent not found above " + Path.of("").toAbsolutePath());
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Map<String, Object> object, String... path) {
    Map<String, Object> node = object;
    for (String key : path) {
      node = (Map<String, Object>) node.get(key);
      assertThat(node).as("%s in %s", key, object).isNotNull();
    }
    return node;
  }

  /** The agent container's env entries by name. */
  @SuppressWarnings("unchecked")
  static Map<String, Map<String, Object>> env(Map<String, Object> deployment) {
    List<Map<String, Object>> containers =
        (List<Map<String, Object>>) map(deployment, "spec", "template", "spec").get("containers");
    Map<String, Map<String, Object>> env = new LinkedHashMap<>();
    for (Map<String, Object> var : (List<Map<String, Object>>) containers.get(0).get("env")) {
      env.put((String) var.get("name"), var);
    }
    return env;
  }
}

package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "projects", aliases = "project", description = "Delivery projects.")
final class ProjectsCommand extends Base {
  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Name", "name"),
          Output.Column.of("Config rev", "configRevision"),
          Output.Column.of("Generated rev", "generatedRevision"),
          Output.Column.of("Description", "description"),
          Output.Column.of("Id", "id"));

  static final List<Output.Column> DETAIL =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Name", "name"),
          Output.Column.of("Description", "description"),
          Output.Column.of("Config revision", "configRevision"),
          Output.Column.of("Generated revision", "generatedRevision"),
          Output.Column.of("Clone URL", "/repository/cloneUrl"),
          Output.Column.of("Created", "createdAt"),
          Output.Column.of("Updated", "updatedAt"));

  @Command(name = "list", aliases = "ls", description = "The organization's projects.")
  void list() {
    JsonNode list = client().call(Endpoint.PROJECTS_LIST);
    output().print(list, items(list), LIST);
  }

  @Command(name = "get", description = "One project (by name or id).")
  void get(@Parameters(paramLabel = "PROJECT") String project) {
    HubClient hub = client();
    output().object(hub.call(Endpoint.PROJECTS_GET, projectId(hub, project)), DETAIL);
  }

  static final List<Output.Column> ENVIRONMENTS =
      List.of(
          Output.Column.of("Environment", "name"),
          Output.Column.of("Namespace pattern", "namespacePattern"),
          Output.Column.of("Clusters", "clusterModes"));

  /** The delivery modes the hub knows; the first is the default. */
  static final List<String> DELIVERY_MODES = List.of("argocd", "flux", "direct");

  @Command(
      name = "environments",
      description =
          "A project's environments: namespace pattern and clusters with their delivery mode.")
  void environments(@Parameters(paramLabel = "PROJECT") String project) {
    HubClient hub = client();
    JsonNode list = hub.call(Endpoint.PROJECT_ENVIRONMENTS_LIST, projectId(hub, project));
    List<JsonNode> rows = new ArrayList<>();
    for (JsonNode e : items(list)) {
      List<String> clusters = new ArrayList<>();
      e.path("clusters")
          .forEach(
              c ->
                  clusters.add(
                      c.path("cluster").asText()
                          + " ("
                          + c.path("deliveryMode").asText("argocd")
                          + ")"));
      rows.add(
          ((com.fasterxml.jackson.databind.node.ObjectNode) e.deepCopy())
              .put("clusterModes", String.join(", ", clusters)));
    }
    output().print(list, rows, ENVIRONMENTS);
  }

  @Command(
      name = "set-environment",
      description =
          "Adds an environment to a project or changes one: its clusters, namespace pattern and"
              + " delivery mode (argocd, flux or direct). What is not given stays as it is, cluster"
              + " value overrides included.")
  void setEnvironment(
      @Parameters(index = "0", paramLabel = "PROJECT") String project,
      @Parameters(index = "1", paramLabel = "ENVIRONMENT") String environment,
      @Option(
              names = "--cluster",
              paramLabel = "NAME[:MODE]",
              description =
                  "A cluster the environment delivers to, optionally with its own delivery mode"
                      + " (repeatable; replaces the environment's clusters).")
          List<String> clusters,
      @Option(names = "--namespace-pattern", paramLabel = "PATTERN") String namespacePattern,
      @Option(
              names = "--delivery-mode",
              paramLabel = "MODE",
              description =
                  "argocd, flux or direct: the delivery mode of every cluster that names none"
                      + " (direct: the cluster's agent applies each deployment itself; it needs"
                      + " the direct.deploy capability).")
          String deliveryMode) {
    HubClient hub = client();
    String id = projectId(hub, project);
    JsonNode current = null;
    for (JsonNode e : items(hub.call(Endpoint.PROJECT_ENVIRONMENTS_LIST, id))) {
      if (environment.equals(e.path("name").asText())) {
        current = e;
      }
    }
    Map<String, Object> body = environmentBody(current, clusters, namespacePattern, deliveryMode);
    JsonNode saved =
        hub.call(Endpoint.PROJECT_ENVIRONMENTS_PUT, Map.of(), body, Map.of(), id, environment);
    output().raw(saved);
  }

  /**
   * The body of {@code PUT /projects/{id}/environments/{env}}: the given clusters (each {@code
   * NAME} or {@code NAME:MODE}) or else the current ones, each keeping its current overrides; the
   * given delivery mode for clusters that name none, else each cluster's current mode.
   *
   * @throws CliException for a mode the hub does not know, before anything is sent
   */
  static Map<String, Object> environmentBody(
      JsonNode current, List<String> clusters, String namespacePattern, String deliveryMode) {
    checkMode("--delivery-mode", deliveryMode);
    Map<String, JsonNode> existing = new LinkedHashMap<>();
    if (current != null) {
      current.path("clusters").forEach(c -> existing.put(c.path("cluster").asText(), c));
    }
    Map<String, String> modes = new LinkedHashMap<>();
    if (clusters != null) {
      for (String c : clusters) {
        int colon = c.indexOf(':');
        String name = colon < 0 ? c : c.substring(0, colon);
        String mode = colon < 0 ? null : c.substring(colon + 1);
        checkMode("--cluster " + c, mode);
        modes.put(name, mode);
      }
    } else {
      existing.keySet().forEach(n -> modes.put(n, null));
    }
    List<Map<String, Object>> out = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    modes.forEach(
        (name, mode) -> {
          JsonNode was = existing.get(name);
          Map<String, Object> c = new LinkedHashMap<>();
          c.put("cluster", name);
          c.put(
              "overrides",
              was == null || !was.path("overrides").isObject()
                  ? Map.of()
                  : json.convertValue(was.path("overrides"), Map.class));
          String chosen =
              mode != null
                  ? mode
                  : deliveryMode != null
                      ? deliveryMode
                      : was != null ? was.path("deliveryMode").asText(DELIVERY_MODES.get(0)) : null;
          if (chosen != null) {
            c.put("deliveryMode", chosen);
          }
          out.add(c);
        });
    Map<String, Object> body = new LinkedHashMap<>();
    String pattern =
        namespacePattern != null
            ? namespacePattern
            : current != null ? current.path("namespacePattern").asText(null) : null;
    if (pattern != null) {
      body.put("namespacePattern", pattern);
    }
    if (deliveryMode != null) {
      body.put("deliveryMode", deliveryMode);
    }
    body.put("clusters", out);
    return body;
  }

  private static void checkMode(String what, String mode) {
    if (mode != null && !DELIVERY_MODES.contains(mode)) {
      throw new CliException(
          ExitCode.USAGE,
          what + ": the delivery mode must be one of " + String.join(", ", DELIVERY_MODES));
    }
  }
}

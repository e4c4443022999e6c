package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
          new Output.Column(
              "Creates namespace", n -> n.path("createNamespace").asBoolean() ? "yes" : "no"),
          Output.Column.of("Clusters", "clusterModes"),
          Output.Column.of("Selector", "selectorText"));

  /** The delivery modes the hub knows; the first is the default. */
  static final List<String> DELIVERY_MODES = List.of("argocd", "flux", "direct");

  @Command(
      name = "environments",
      description =
          "A project's environments: namespace pattern, whether the delivery creates the"
              + " namespaces, clusters with their delivery mode and why each is bound (named, or"
              + " matched by the environment's cluster selector), and the selector.")
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
                          + (bySelector(c)
                              ? (named(c) ? ", named and selected" : ", selected")
                              : "")
                          + ")"));
      rows.add(
          ((ObjectNode) e.deepCopy())
              .put("clusterModes", String.join(", ", clusters))
              .put("selectorText", SelectorSyntax.format(e.path("clusterSelector"))));
    }
    output().print(list, rows, ENVIRONMENTS);
  }

  @Command(
      name = "set-environment",
      description =
          "Adds an environment to a project or changes one: its clusters, namespace pattern,"
              + " delivery mode (argocd, flux or direct) and whether the delivery creates the"
              + " namespaces. What is not given stays as it is, cluster value overrides included.")
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
          String deliveryMode,
      @Option(
              names = "--selector",
              paramLabel = "SELECTOR",
              description =
                  "A label selector in kubectl's syntax, e.g. 'tier=production,region in"
                      + " (eu-1,eu-2),!legacy': the organization's registered clusters it matches"
                      + " are bound too, and join or leave as their labels change. '' matches"
                      + " every cluster. Keeps the current selector when not given.")
          String selector,
      @Option(
              names = "--no-selector",
              description = "Removes the environment's cluster selector (binds by name only).")
          boolean noSelector,
      @Option(
              names = "--create-namespace",
              paramLabel = "true|false",
              arity = "0..1",
              fallbackValue = "true",
              description =
                  "Whether the delivery writes the Namespace objects of the environment's"
                      + " namespaces (a new environment: false). Leave it off when the platform"
                      + " team creates namespaces.")
          Boolean createNamespace) {
    HubClient hub = client();
    String id = projectId(hub, project);
    JsonNode current = null;
    for (JsonNode e : items(hub.call(Endpoint.PROJECT_ENVIRONMENTS_LIST, id))) {
      if (environment.equals(e.path("name").asText())) {
        current = e;
      }
    }
    if (selector != null && noSelector) {
      throw new CliException(ExitCode.USAGE, "give --selector or --no-selector, not both");
    }
    Map<String, Object> body =
        environmentBody(
            current,
            clusters,
            namespacePattern,
            deliveryMode,
            createNamespace,
            selector,
            noSelector);
    JsonNode saved =
        hub.call(Endpoint.PROJECT_ENVIRONMENTS_PUT, Map.of(), body, Map.of(), id, environment);
    output().raw(saved);
  }

  /**
   * The body of {@code PUT /projects/{id}/environments/{env}}: the given clusters (each {@code
   * NAME} or {@code NAME:MODE}) or else the current ones, each keeping its current overrides; the
   * given delivery mode for clusters that name none, else each cluster's current mode; the given
   * {@code createNamespace}, else the current one (the PUT replaces the environment, so what the
   * body leaves out is reset).
   *
   * @throws CliException for a mode the hub does not know, before anything is sent
   */
  static Map<String, Object> environmentBody(
      JsonNode current,
      List<String> clusters,
      String namespacePattern,
      String deliveryMode,
      Boolean createNamespace) {
    return environmentBody(
        current, clusters, namespacePattern, deliveryMode, createNamespace, null, false);
  }

  /**
   * As above, with the cluster selector: {@code selector} (kubectl syntax) when given, none when
   * {@code noSelector}, else the current one. Clusters only the selector binds are not sent as
   * named clusters: the hub binds them again from the selector.
   */
  static Map<String, Object> environmentBody(
      JsonNode current,
      List<String> clusters,
      String namespacePattern,
      String deliveryMode,
      Boolean createNamespace,
      String selector,
      boolean noSelector) {
    checkMode("--delivery-mode", deliveryMode);
    Map<String, Object> clusterSelector = selector != null ? SelectorSyntax.parse(selector) : null;
    Map<String, JsonNode> existing = new LinkedHashMap<>();
    if (current != null) {
      current
          .path("clusters")
          .forEach(
              c -> {
                if (named(c)) {
                  existing.put(c.path("cluster").asText(), c);
                }
              });
      if (selector == null && !noSelector && current.path("clusterSelector").isObject()) {
        clusterSelector =
            new ObjectMapper().convertValue(current.path("clusterSelector"), Map.class);
      }
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
    } else if (clusterSelector != null && current != null && current.has("selectorDeliveryMode")) {
      // The environment's mode is also the mode of the clusters its selector binds: keep it.
      body.put("deliveryMode", current.path("selectorDeliveryMode").asText());
    }
    body.put(
        "createNamespace",
        createNamespace != null
            ? createNamespace
            : current != null && current.path("createNamespace").asBoolean(false));
    body.put("clusters", out);
    if (clusterSelector != null) {
      body.put("clusterSelector", clusterSelector);
    }
    return body;
  }

  /** Whether the environment names the cluster (hubs before selectors say nothing: named). */
  static boolean named(JsonNode c) {
    return !c.has("boundBy") || strings(c.path("boundBy")).contains("name");
  }

  static boolean bySelector(JsonNode c) {
    return strings(c.path("boundBy")).contains("selector");
  }

  static final List<Output.Column> PREVIEW =
      List.of(
          Output.Column.of("Cluster", "name"),
          new Output.Column(
              "Bound", n -> n.path("registered").asBoolean() ? "yes" : "when its agent registers"),
          new Output.Column(
              "Labels",
              n -> {
                List<String> pairs = new ArrayList<>();
                n.path("labels")
                    .fields()
                    .forEachRemaining(e -> pairs.add(e.getKey() + "=" + e.getValue().asText()));
                return String.join(",", pairs);
              }));

  @Command(
      name = "preview-selector",
      description =
          "Which of the organization's clusters a label selector matches now (kubectl syntax,"
              + " e.g. 'tier=production,!legacy'; '' matches every cluster). Only registered"
              + " clusters are bound by an environment's selector.")
  void previewSelector(@Parameters(paramLabel = "SELECTOR") String selector) {
    JsonNode preview =
        client()
            .call(
                Endpoint.CLUSTERS_SELECTOR_PREVIEW,
                Map.of(),
                SelectorSyntax.parse(selector),
                Map.of());
    List<JsonNode> rows = new ArrayList<>();
    preview.path("clusters").forEach(rows::add);
    output().print(preview, rows, PREVIEW);
  }

  static final List<Output.Column> FENCE =
      List.of(
          new Output.Column(
              "Fence",
              n ->
                  n.path("default").asBoolean()
                      ? "the default (no admin has set one)"
                      : "set by "
                          + Output.text(n.path("updatedBy"))
                          + " at "
                          + Output.text(n.path("updatedAt"))),
          fenceList(
              "Allowed namespaces",
              "allowedNamespaces",
              "any namespace but kube-system, kube-public, kube-node-lease, flux-system, argocd"),
          fenceList(
              "Cluster-scoped kinds",
              "clusterScopedKinds",
              "none but the Namespace of an allowed namespace"),
          fenceList("Denied kinds", "deniedKinds", "none"),
          new Output.Column(
              "Changed",
              n -> n.has("changed") ? (n.path("changed").asBoolean() ? "yes" : "no") : ""),
          Output.Column.of("Config revision", "revision"),
          Output.Column.of("Commit", "commit"));

  /** A fence list, or what its being empty means. */
  private static Output.Column fenceList(String header, String field, String emptyMeans) {
    return new Output.Column(
        header,
        n ->
            n.path(field).isEmpty()
                ? "(empty: " + emptyMeans + ")"
                : String.join(", ", strings(n.path(field))));
  }

  @Command(
      name = "fence",
      description =
          "A project's fence: the namespaces its delivery may write to, the cluster-scoped kinds"
              + " it may deliver and the kinds it may never deliver. With an option it sets the"
              + " fence (projects:admin, a configuration commit): each list given replaces that"
              + " list, the others stay as they are; an empty value (--deny-kind=) empties its"
              + " list.")
  void fence(
      @Parameters(paramLabel = "PROJECT") String project,
      @Option(
              names = "--allow-namespace",
              paramLabel = "NAME",
              description = "A namespace name or * pattern, e.g. shop-* (repeatable).")
          List<String> allowedNamespaces,
      @Option(
              names = "--cluster-scoped-kind",
              paramLabel = "KIND",
              description =
                  "Kind, group/Kind, /Kind (core group) or group/* the project may deliver outside"
                      + " a namespace (repeatable).")
          List<String> clusterScopedKinds,
      @Option(
              names = "--deny-kind",
              paramLabel = "KIND",
              description = "A kind the project may never deliver, as above (repeatable).")
          List<String> deniedKinds) {
    HubClient hub = client();
    String id = projectId(hub, project);
    JsonNode current = hub.call(Endpoint.PROJECT_FENCE_GET, id);
    if (allowedNamespaces == null && clusterScopedKinds == null && deniedKinds == null) {
      output().object(current, FENCE);
      return;
    }
    Map<String, Object> body =
        fenceBody(current, allowedNamespaces, clusterScopedKinds, deniedKinds);
    output().object(hub.call(Endpoint.PROJECT_FENCE_PUT, Map.of(), body, Map.of(), id), FENCE);
  }

  /**
   * The body of {@code PUT /projects/{id}/fence}, which replaces the whole fence: each list given
   * (blank entries left out), else the current one — so setting the namespaces of a project with
   * the default fence keeps its denied RBAC and admission kinds.
   */
  static Map<String, Object> fenceBody(
      JsonNode current,
      List<String> allowedNamespaces,
      List<String> clusterScopedKinds,
      List<String> deniedKinds) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("allowedNamespaces", givenOrCurrent(allowedNamespaces, current, "allowedNamespaces"));
    body.put(
        "clusterScopedKinds", givenOrCurrent(clusterScopedKinds, current, "clusterScopedKinds"));
    body.put("deniedKinds", givenOrCurrent(deniedKinds, current, "deniedKinds"));
    return body;
  }

  private static List<String> givenOrCurrent(List<String> given, JsonNode current, String field) {
    if (given == null) {
      return strings(current.path(field));
    }
    return given.stream().map(String::trim).filter(e -> !e.isEmpty()).toList();
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(e -> out.add(e.asText()));
    return out;
  }

  private static void checkMode(String what, String mode) {
    if (mode != null && !DELIVERY_MODES.contains(mode)) {
      throw new CliException(
          ExitCode.USAGE,
          what + ": the delivery mode must be one of " + String.join(", ", DELIVERY_MODES));
    }
  }
}

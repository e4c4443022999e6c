package dev.gitopshq.testkube;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Turns stored objects into the {@code meta.k8s.io/v1 Table} that {@code kubectl get} asks for.
 *
 * <p>A real API server prints tables on the server side; without them kubectl falls back to NAME
 * and AGE only. This converter covers the kinds people look at in a demo (Deployments, Pods,
 * Namespaces) and custom resources through their CRD's additional printer columns, which is how
 * {@code kubectl get applications} shows the sync and health status.
 */
final class TableConverter {

  /** A column: its header, type, and how to read its cell from an object. */
  record Column(String name, String type, Function<JsonNode, Object> cell) {}

  private final ObjectMapper mapper = new ObjectMapper();

  /** True if the Accept header asks for a server-side table. */
  static boolean wantsTable(String accept) {
    return accept != null && accept.contains("as=Table");
  }

  /**
   * Converts a list or single object to a Table.
   *
   * @param body the JSON the CRUD dispatcher answered with
   * @param customColumns the printer columns of the object's CRD, or an empty list
   * @return the Table JSON, or null if the body is not something to tabulate
   */
  String toTable(String body, Function<JsonNode, List<Column>> customColumns) {
    JsonNode root;
    try {
      root = mapper.readTree(body);
    } catch (JsonProcessingException e) {
      return null;
    }
    if (root == null || !root.isObject() || !root.hasNonNull("kind")) {
      return null;
    }
    List<JsonNode> items = new ArrayList<>();
    if (root.has("items") && root.get("items").isArray()) {
      root.get("items").forEach(items::add);
    } else if (root.has("metadata")) {
      items.add(root);
    } else {
      return null;
    }
    List<Column> columns = columnsFor(items.isEmpty() ? null : items.get(0), customColumns);

    ObjectNode table = mapper.createObjectNode();
    table.put("kind", "Table");
    table.put("apiVersion", "meta.k8s.io/v1");
    ObjectNode metadata = table.putObject("metadata");
    JsonNode resourceVersion = root.path("metadata").path("resourceVersion");
    if (!resourceVersion.isMissingNode()) {
      metadata.set("resourceVersion", resourceVersion);
    }
    ArrayNode definitions = table.putArray("columnDefinitions");
    for (Column column : columns) {
      ObjectNode definition = definitions.addObject();
      definition.put("name", column.name());
      definition.put("type", column.type());
      definition.put("format", column.name().equals("Name") ? "name" : "");
      definition.put("description", column.name());
      definition.put("priority", 0);
    }
    ArrayNode rows = table.putArray("rows");
    for (JsonNode item : items) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      for (Column column : columns) {
        cells.addPOJO(column.cell().apply(item));
      }
      // kubectl reads the namespace, labels and kind for -A, --show-labels and -o name from here.
      row.set("object", item);
    }
    return table.toString();
  }

  private List<Column> columnsFor(JsonNode sample, Function<JsonNode, List<Column>> customColumns) {
    List<Column> columns = new ArrayList<>();
    columns.add(new Column("Name", "string", item -> item.path("metadata").path("name").asText()));
    String kind = sample == null ? "" : sample.path("kind").asText();
    switch (kind) {
      case "Deployment", "StatefulSet", "ReplicaSet" -> {
        columns.add(
            new Column(
                "Ready",
                "string",
                item ->
                    item.path("status").path("readyReplicas").asInt(0)
                        + "/"
                        + item.path("spec").path("replicas").asInt(1)));
        if (kind.equals("Deployment")) {
          columns.add(
              new Column(
                  "Up-to-date",
                  "integer",
                  item -> item.path("status").path("updatedReplicas").asInt(0)));
          columns.add(
              new Column(
                  "Available",
                  "integer",
                  item -> item.path("status").path("availableReplicas").asInt(0)));
        }
      }
      case "Pod" -> {
        columns.add(new Column("Ready", "string", TableConverter::podReady));
        columns.add(
            new Column(
                "Status", "string", item -> item.path("status").path("phase").asText("Pending")));
        columns.add(new Column("Restarts", "integer", TableConverter::podRestarts));
      }
      case "Namespace" ->
          columns.add(
              new Column(
                  "Status", "string", item -> item.path("status").path("phase").asText("Active")));
      default -> {
        if (sample != null) {
          columns.addAll(customColumns.apply(sample));
        }
      }
    }
    columns.add(
        new Column(
            "Age",
            "string",
            item -> age(item.path("metadata").path("creationTimestamp").asText(""))));
    return columns;
  }

  /** Reads a simple CRD printer-column JSONPath such as {@code .status.sync.status}. */
  static Object readJsonPath(JsonNode item, String jsonPath) {
    JsonNode node = item;
    for (String field : jsonPath.replaceFirst("^\\.", "").split("\\.")) {
      node = node.path(field);
    }
    return node.isMissingNode() || node.isNull()
        ? ""
        : node.isValueNode() ? node.asText() : node.toString();
  }

  private static Object podReady(JsonNode pod) {
    int total = pod.path("spec").path("containers").size();
    int ready = 0;
    for (JsonNode status : pod.path("status").path("containerStatuses")) {
      if (status.path("ready").asBoolean(false)) {
        ready++;
      }
    }
    return ready + "/" + total;
  }

  private static Object podRestarts(JsonNode pod) {
    int restarts = 0;
    for (JsonNode status : pod.path("status").path("containerStatuses")) {
      restarts += status.path("restartCount").asInt(0);
    }
    return restarts;
  }

  /** Formats an age the way kubectl does: 45s, 5m10s, 17m, 3h, 4d. */
  static String age(String creationTimestamp) {
    Instant created;
    try {
      created = Instant.parse(creationTimestamp);
    } catch (DateTimeParseException e) {
      return "<unknown>";
    }
    Duration age = Duration.between(created, Instant.now());
    long seconds = Math.max(0, age.toSeconds());
    if (seconds < 120) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 10) {
      long rest = seconds % 60;
      return rest == 0 ? minutes + "m" : minutes + "m" + rest + "s";
    }
    if (minutes < 180) {
      return minutes + "m";
    }
    long hours = minutes / 60;
    if (hours < 48) {
      return hours + "h";
    }
    return hours / 24 + "d";
  }
}

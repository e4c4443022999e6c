package dev.gitopshq.testkube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A practical subset of Kubernetes strategic merge patch, for the patches {@code kubectl} and
 * server-side apply send to built-in kinds.
 *
 * <p>The Fabric8 CRUD store understands JSON patch and JSON merge patch only, while {@code kubectl
 * apply}, {@code rollout restart} and {@code label} send strategic merge patches. A real API server
 * merges lists by a per-field key from the OpenAPI schema; without the schema this class merges
 * lists of objects by the first of the usual keys ({@code name}, {@code mountPath}, {@code
 * containerPort}, {@code type}, {@code devicePath}, {@code ip}) that every element on both sides
 * has, and replaces other lists, which is what the schema says for the fields those commands touch.
 * Directives ({@code $patch}, {@code $setElementOrder/...}, {@code $retainKeys}, {@code
 * $deleteFromPrimitiveList/...}) are honoured where they matter for those commands and otherwise
 * dropped.
 */
final class StrategicMerge {

  private static final List<String> MERGE_KEYS =
      List.of("name", "mountPath", "containerPort", "type", "devicePath", "ip");

  private StrategicMerge() {}

  /** Returns {@code original} with {@code patch} merged in; neither argument is modified. */
  static JsonNode apply(JsonNode original, JsonNode patch) {
    if (patch == null || !patch.isObject()) {
      return patch == null ? original : patch.deepCopy();
    }
    if (original == null || !original.isObject()) {
      return clean(patch);
    }
    if ("replace".equals(patch.path("$patch").asText())) {
      return clean(patch);
    }
    ObjectNode merged = original.deepCopy();
    for (Iterator<Map.Entry<String, JsonNode>> fields = patch.properties().iterator();
        fields.hasNext(); ) {
      Map.Entry<String, JsonNode> field = fields.next();
      String name = field.getKey();
      JsonNode value = field.getValue();
      if (name.startsWith("$deleteFromPrimitiveList/")) {
        String list = name.substring(name.indexOf('/') + 1);
        if (merged.get(list) instanceof ArrayNode existing && value.isArray()) {
          ArrayNode kept = JsonNodeFactory.instance.arrayNode();
          existing.forEach(
              item -> {
                if (!contains(value, item)) {
                  kept.add(item);
                }
              });
          merged.set(list, kept);
        }
        continue;
      }
      if (name.startsWith("$")) {
        continue;
      }
      if (value.isNull()) {
        merged.remove(name);
      } else if (value.isObject()) {
        merged.set(name, apply(merged.get(name), value));
      } else if (value.isArray() && merged.get(name) instanceof ArrayNode existing) {
        merged.set(name, mergeLists(existing, (ArrayNode) value));
      } else {
        merged.set(name, clean(value));
      }
    }
    return merged;
  }

  private static JsonNode mergeLists(ArrayNode original, ArrayNode patch) {
    String key = mergeKey(original, patch);
    if (key == null) {
      return clean(patch);
    }
    ArrayNode merged = original.deepCopy();
    for (JsonNode item : patch) {
      JsonNode id = item.get(key);
      int index = indexOf(merged, key, id);
      String directive = item.path("$patch").asText();
      if ("delete".equals(directive)) {
        if (index >= 0) {
          merged.remove(index);
        }
      } else if (index >= 0) {
        merged.set(index, apply(merged.get(index), item));
      } else {
        merged.add(clean(item));
      }
    }
    return merged;
  }

  private static String mergeKey(ArrayNode original, ArrayNode patch) {
    for (String key : MERGE_KEYS) {
      if (allHave(original, key) && allHave(patch, key) && (original.size() + patch.size()) > 0) {
        return key;
      }
    }
    return null;
  }

  private static boolean allHave(ArrayNode list, String key) {
    for (JsonNode item : list) {
      if (!item.isObject() || (!item.has(key) && !"delete".equals(item.path("$patch").asText()))) {
        return false;
      }
    }
    return true;
  }

  private static int indexOf(ArrayNode list, String key, JsonNode id) {
    for (int i = 0; i < list.size(); i++) {
      if (id != null && id.equals(list.get(i).get(key))) {
        return i;
      }
    }
    return -1;
  }

  private static boolean contains(JsonNode list, JsonNode item) {
    for (JsonNode candidate : list) {
      if (candidate.equals(item)) {
        return true;
      }
    }
    return false;
  }

  /** Copies a patch value without directive keys, so none are stored. */
  private static JsonNode clean(JsonNode value) {
    if (value.isObject()) {
      ObjectNode copy = JsonNodeFactory.instance.objectNode();
      value
          .properties()
          .forEach(
              field -> {
                if (!field.getKey().startsWith("$")) {
                  copy.set(field.getKey(), clean(field.getValue()));
                }
              });
      return copy;
    }
    if (value.isArray()) {
      ArrayNode copy = JsonNodeFactory.instance.arrayNode();
      value.forEach(item -> copy.add(clean(item)));
      return copy;
    }
    return value.deepCopy();
  }
}

package dev.gitopshq.activities.delivery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The JSON the object model keeps in {@code jsonb} columns (values, overrides, files, overlays).
 * Rows carry these columns as JSON text and this class reads and writes them, so no mapper result
 * needs a {@code Map} or {@code List} type handler.
 */
public final class DeliveryJson {
  /** Keys sorted, so equal content is stored and compared as equal text. */
  public static final ObjectMapper JSON =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private static final TypeReference<TreeMap<String, Object>> OBJECT = new TypeReference<>() {};
  private static final TypeReference<TreeMap<String, String>> FILES = new TypeReference<>() {};
  private static final TypeReference<List<Overlay>> OVERLAYS = new TypeReference<>() {};

  private DeliveryJson() {}

  /** A JSON object as a sorted map; null or empty text is an empty map. */
  public static Map<String, Object> object(String json) {
    if (json == null || json.isBlank()) {
      return new TreeMap<>();
    }
    try {
      return JSON.readValue(json, OBJECT);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored JSON is not an object", e);
    }
  }

  /** Files as stored: relative path to text, in path order. */
  public static Map<String, String> files(String json) {
    if (json == null || json.isBlank()) {
      return new TreeMap<>();
    }
    try {
      return JSON.readValue(json, FILES);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored files are not an object of strings", e);
    }
  }

  public static List<Overlay> overlays(String json) {
    if (json == null || json.isBlank()) {
      return List.of();
    }
    try {
      return JSON.readValue(json, OVERLAYS);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored overlays are not a list of overlays", e);
    }
  }

  /** A stored label selector; null or empty text is no selector (null). */
  public static LabelSelector selector(String json) {
    if (json == null || json.isBlank()) {
      return null;
    }
    try {
      return JSON.readValue(json, LabelSelector.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored cluster selector is not a label selector", e);
    }
  }

  /** Any value as JSON text with object keys sorted. */
  public static String write(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not serializable as JSON", e);
    }
  }
}

package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every endpoint the CLI calls ({@link Endpoint}) exists in the hub's committed OpenAPI document
 * (docs/openapi.yaml) with the same method and path, so the CLI cannot drift from the hub.
 */
class OpenApiContractTest {
  static final Path OPENAPI = Path.of("..", "docs", "openapi.yaml");

  /** {@code /a/{id}/b/{name}} and {@code /a/{x}/b/{y}} are the same route. */
  static String shape(String path) {
    return path.replaceAll("\\{[^}]+}", "{}");
  }

  @Test
  void everyEndpointTheCliCallsIsInTheOpenApiDocument() throws Exception {
    if (!Files.isRegularFile(OPENAPI)) {
      fail(
          OPENAPI.toAbsolutePath().normalize()
              + " is missing: the CLI's endpoints are checked against the hub's committed OpenAPI"
              + " document; generate or merge docs/openapi.yaml first");
    }
    JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(OPENAPI.toFile());
    Map<String, JsonNode> byShape = new HashMap<>();
    doc.path("paths").properties().forEach(e -> byShape.put(shape(e.getKey()), e.getValue()));
    List<String> missing = new ArrayList<>();
    for (Endpoint e : Endpoint.values()) {
      JsonNode item = byShape.get(shape(e.path()));
      if (item == null || !item.has(e.method().toLowerCase(Locale.ROOT))) {
        missing.add(e.method() + " " + e.path() + " (" + e.name() + ")");
      }
    }
    assertThat(missing).as("endpoints the CLI calls but docs/openapi.yaml lacks").isEmpty();
  }
}

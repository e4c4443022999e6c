package dev.gitopshq.hub.openapi;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Short, unique schema names. The controllers' records are often nested and share simple names
 * ({@code CommandController.Accepted}, {@code ReleaseController.Accepted}), so springdoc runs with
 * fully-qualified names ({@code springdoc.use-fqn}) and this gives each schema its simple name when
 * that is unique, else the name with its enclosing class ({@code CommandController.Accepted}), and
 * rewrites every reference.
 */
final class SchemaNames {
  private static final String PREFIX = "#/components/schemas/";

  private SchemaNames() {}

  static void shorten(OpenAPI openApi) {
    Map<String, Schema> schemas = openApi.getComponents().getSchemas();
    if (schemas == null) {
      return;
    }
    Map<String, List<String>> bySimple =
        schemas.keySet().stream().collect(Collectors.groupingBy(SchemaNames::simple));
    Map<String, List<String>> byQualified =
        schemas.keySet().stream().collect(Collectors.groupingBy(SchemaNames::qualified));
    Map<String, String> rename = new HashMap<>();
    for (String name : schemas.keySet()) {
      // Each candidate is unique among its kind, and a qualified name (with a dot) never equals
      // a simple one, so no two schemas end up with one name.
      if (bySimple.get(simple(name)).size() == 1) {
        rename.put(name, simple(name));
      } else if (byQualified.get(qualified(name)).size() == 1 && qualified(name).contains(".")) {
        rename.put(name, qualified(name));
      } else {
        rename.put(name, name);
      }
    }
    Map<String, Schema> renamed = new TreeMap<>();
    schemas.forEach((name, schema) -> renamed.put(rename.get(name), schema));
    openApi.getComponents().setSchemas(new LinkedHashMap<>(renamed));
    Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    renamed.values().forEach(s -> visit(s, rename, seen));
    if (openApi.getComponents().getResponses() != null) {
      openApi.getComponents().getResponses().values().forEach(r -> visit(r, rename, seen));
    }
    if (openApi.getPaths() != null) {
      openApi
          .getPaths()
          .values()
          .forEach(
              item ->
                  item.readOperations()
                      .forEach(
                          op -> {
                            if (op.getParameters() != null) {
                              op.getParameters().forEach(p -> visit(p, rename, seen));
                            }
                            if (op.getRequestBody() != null) {
                              visit(op.getRequestBody().getContent(), rename, seen);
                            }
                            if (op.getResponses() != null) {
                              op.getResponses().values().forEach(r -> visit(r, rename, seen));
                            }
                          }));
    }
  }

  /** Package names, also inside a generic's name ({@code ItemsDev.gitopshq.hub.X}). */
  private static final Pattern PACKAGE = Pattern.compile("[Dd]ev\\.gitopshq(?:\\.[a-z0-9_]+)*\\.");

  /** Outer classes: {@code Outer.Inner} -> {@code Inner}. */
  private static final Pattern OUTER = Pattern.compile("[A-Z][A-Za-z0-9_]*\\.");

  /** {@code dev.gitopshq.x.Outer.Inner} -> {@code Outer.Inner}. */
  static String qualified(String fqn) {
    return PACKAGE.matcher(fqn.replace('$', '.')).replaceAll("");
  }

  /** {@code dev.gitopshq.x.Outer.ItemsDev.gitopshq.y.Other.View} -> {@code ItemsView}. */
  static String simple(String fqn) {
    return OUTER.matcher(qualified(fqn)).replaceAll("");
  }

  private static void visit(ApiResponse r, Map<String, String> rename, Set<Object> seen) {
    visit(r.getContent(), rename, seen);
  }

  private static void visit(Parameter p, Map<String, String> rename, Set<Object> seen) {
    visit(p.getSchema(), rename, seen);
    visit(p.getContent(), rename, seen);
  }

  private static void visit(Content c, Map<String, String> rename, Set<Object> seen) {
    if (c != null) {
      c.values().forEach(m -> visit(m.getSchema(), rename, seen));
    }
  }

  @SuppressWarnings("unchecked")
  private static void visit(Schema<?> s, Map<String, String> rename, Set<Object> seen) {
    if (s == null || !seen.add(s)) {
      return;
    }
    if (s.get$ref() != null && s.get$ref().startsWith(PREFIX)) {
      String target = rename.get(s.get$ref().substring(PREFIX.length()));
      if (target != null) {
        s.set$ref(PREFIX + target);
      }
    }
    all(s.getProperties() == null ? null : s.getProperties().values(), rename, seen);
    visit(s.getItems(), rename, seen);
    if (s.getAdditionalProperties() instanceof Schema<?> extra) {
      visit(extra, rename, seen);
    }
    all(s.getAllOf(), rename, seen);
    all(s.getAnyOf(), rename, seen);
    all(s.getOneOf(), rename, seen);
    visit(s.getNot(), rename, seen);
    all(s.getPrefixItems(), rename, seen);
  }

  private static void all(
      Collection<? extends Schema> schemas, Map<String, String> rename, Set<Object> seen) {
    if (schemas != null) {
      schemas.forEach(s -> visit(s, rename, seen));
    }
  }
}

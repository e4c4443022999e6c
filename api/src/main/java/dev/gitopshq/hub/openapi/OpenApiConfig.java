package dev.gitopshq.hub.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.hub.security.PublicRoutes;
import dev.gitopshq.hub.web.ApiError;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.Paths;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What springdoc cannot see in the controllers: the bearer-token security scheme, the error body
 * every 4xx/5xx carries ({@link ApiError}) and the error responses each operation can give, stable
 * operation ids, and no server URL (the document is the same whatever host or port serves it).
 */
@Configuration
public class OpenApiConfig {
  static final String BEARER = "bearerToken";
  static final String ERROR_SCHEMA = "ApiError";
  static final String ERROR_REF = "#/components/schemas/" + ERROR_SCHEMA;

  static {
    // A JsonNode field holds any JSON value (a policy input, an audit entry's details), not an
    // object with JsonNode's getters.
    SpringDocUtils.getConfig()
        .replaceWithSchema(JsonNode.class, new Schema<>().description("any JSON value"));
  }

  @Bean
  OpenAPI hubOpenApi() {
    return new OpenAPI()
        .info(
            new Info()
                .title("GitOpsHQ hub REST API")
                // The API's version (the /api/v2 prefix), not the hub's: the committed copy does
                // not
                // change with every release.
                .version("v2")
                .description(
                    "The hub's REST API (`/api/v2`). The prose reference, with the permissions"
                        + " each operation needs, is docs/api.md. Every error answers with the"
                        + " `ApiError` body.")
                .license(new License().name("Apache-2.0")))
        // Relative: the document is the same on every host and port that serves it.
        .servers(List.of(new Server().url("/").description("this hub")))
        .components(
            new Components()
                .addSecuritySchemes(
                    BEARER,
                    new SecurityScheme()
                        .type(SecurityScheme.Type.HTTP)
                        .scheme("bearer")
                        .description(
                            "`Authorization: Bearer <token>`: a member's API token (`ghqp_` + 64"
                                + " hex), a service account's (`ghqs_` + 64 hex), an SSO session"
                                + " (`ghqo_` + 64 hex) or the bootstrap owner token"
                                + " (GITOPSHQ_BOOTSTRAP_TOKEN, 32-256 characters). A missing,"
                                + " unknown, expired or revoked token is 401 with one body.")))
        .addSecurityItem(new SecurityRequirement().addList(BEARER));
  }

  /** Operation ids from the controller and method name, so they never depend on scan order. */
  @Bean
  OperationCustomizer stableOperationIds() {
    return (operation, handler) -> {
      String controller = handler.getBeanType().getSimpleName().replaceFirst("Controller$", "");
      operation.setOperationId(
          Character.toLowerCase(controller.charAt(0))
              + controller.substring(1)
              + "_"
              + handler.getMethod().getName());
      return operation;
    };
  }

  /** The error schema, the error responses and the public operations' empty security. */
  @Bean
  OpenApiCustomizer errorResponses() {
    return openApi -> {
      Map<String, Schema> schemas = ModelConverters.getInstance().readAll(ApiError.class);
      schemas.forEach((name, schema) -> openApi.getComponents().addSchemas(name, schema));
      SchemaNames.shorten(openApi);
      Schema<?> error = openApi.getComponents().getSchemas().get(ERROR_SCHEMA);
      error.setRequired(List.of("status", "error", "message"));
      error.setDescription("The body of every error response.");
      error.setExample(
          Map.of(
              "status",
              400,
              "error",
              "invalid_request",
              "message",
              "name: is required",
              "errors",
              List.of(Map.of("field", "name", "reason", "is required"))));
      Schema<?> fieldError = openApi.getComponents().getSchemas().get("FieldError");
      if (fieldError != null) {
        fieldError.setRequired(List.of("field", "reason"));
      }
      addErrorResponses(openApi.getComponents());
      if (openApi.getPaths() == null) {
        return;
      }
      openApi
          .getPaths()
          .forEach(
              (path, item) ->
                  item.readOperationsMap().forEach((method, op) -> decorate(path, method, op)));
      // Sorted paths: the document is byte-for-byte the same on every run.
      openApi.setPaths(sortedPaths(openApi.getPaths()));
    };
  }

  /** The shared error responses: name, status and description. */
  private static final List<String[]> ERRORS =
      List.of(
          new String[] {"BadRequest", "400", "The request is invalid: `errors` names each field."},
          new String[] {
            "Unauthorized", "401", "No bearer token, or one that is unknown, expired or revoked."
          },
          new String[] {"Forbidden", "403", "The caller lacks the permission the message names."},
          new String[] {"NotFound", "404", "No such resource in the caller's organization."},
          new String[] {"PayloadTooLarge", "413", "The body is larger than this route's limit."},
          new String[] {"UnsupportedMediaType", "415", "The body's content type is not accepted."},
          new String[] {"InternalError", "500", "The hub could not complete the request."},
          new String[] {
            "Error", "default", "Any other error (409, 422, 429, 503, ...), in the same shape."
          });

  private static void addErrorResponses(Components components) {
    for (String[] e : ERRORS) {
      components.addResponses(
          e[0],
          new ApiResponse()
              .description(e[2])
              .content(
                  new Content()
                      .addMediaType(
                          "application/json",
                          new MediaType().schema(new Schema<>().$ref(ERROR_REF)))));
    }
  }

  private static void decorate(String path, PathItem.HttpMethod method, Operation op) {
    boolean isPublic = PublicRoutes.isPublic(method.name(), path);
    if (isPublic) {
      op.setSecurity(new ArrayList<>());
    }
    ApiResponses responses = op.getResponses() == null ? new ApiResponses() : op.getResponses();
    add(responses, "BadRequest");
    if (!isPublic || path.startsWith("/api/v2/webhooks/")) {
      add(responses, "Unauthorized");
    }
    if (!isPublic) {
      add(responses, "Forbidden");
    }
    add(responses, "NotFound");
    if (op.getRequestBody() != null) {
      add(responses, "PayloadTooLarge");
      add(responses, "UnsupportedMediaType");
    }
    add(responses, "InternalError");
    add(responses, "Error");
    op.setResponses(responses);
  }

  private static void add(ApiResponses responses, String name) {
    String status = ERRORS.stream().filter(e -> e[0].equals(name)).findFirst().orElseThrow()[1];
    if (!responses.containsKey(status)) {
      responses.addApiResponse(status, new ApiResponse().$ref("#/components/responses/" + name));
    }
  }

  private static Paths sortedPaths(Paths paths) {
    var sorted = new Paths();
    new TreeMap<>(paths).forEach(sorted::addPathItem);
    return sorted;
  }
}

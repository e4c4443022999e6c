package dev.gitopshq.testkube;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionList;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP front of TestKube: answers what the Fabric8 CRUD dispatcher cannot and hands the rest to
 * it.
 *
 * <p>The CRUD dispatcher stores objects faithfully but knows nothing of discovery, server-side
 * tables, the {@code scale} subresource, strategic merge patch or server-side apply, all of which
 * {@code kubectl} relies on. The mock server's own expectation queue cannot fill those gaps next to
 * CRUD (the mixed dispatcher only consults it for exact, pre-recorded paths), so this dispatcher
 * wraps the CRUD one instead:
 *
 * <ul>
 *   <li>discovery ({@code /version}, {@code /api}, {@code /apis}, per group-version lists);
 *   <li>a skeleton of {@code /openapi/v3} that tells kubectl to leave validation to the server
 *       (OpenAPI v2 answers 404);
 *   <li>{@code .../scale} of Deployments, StatefulSets and ReplicaSets, as {@code autoscaling/v1
 *       Scale};
 *   <li>strategic merge patches and server-side apply, via {@link StrategicMerge};
 *   <li>{@code meta.k8s.io/v1 Table} answers when the client asks for them;
 *   <li>protobuf bodies answer 415, because the store understands JSON only.
 * </ul>
 */
final class ApiDispatcher extends Dispatcher {

  private static final String JSON = "application/json";
  private static final String CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  private static final Pattern SCALE =
      Pattern.compile(
          "^(/apis/apps/v1/namespaces/[^/]+/(?:deployments|statefulsets|replicasets)/[^/]+)/scale$");

  /**
   * The mock web server records every request in an unbounded queue that nothing drains, so a
   * long-running dev server would slowly fill its heap; the log is cleared past this size.
   */
  private static final int RECORDED_REQUEST_LIMIT = 1_000;

  /** Read-modify-write requests retry this often when a concurrent writer got in between. */
  private static final int CONFLICT_RETRIES = 5;

  private final KubernetesCrudDispatcher crud;
  private final KubernetesSerialization serialization;
  private final Map<String, Object> versionInfo;
  private final ObjectMapper mapper = new ObjectMapper();
  private final TableConverter tables = new TableConverter();
  private final Discovery discovery = new Discovery(this::storedCrds);
  private volatile MockWebServer recorder;
  private volatile String serverAddress = "127.0.0.1:0";

  ApiDispatcher(
      KubernetesCrudDispatcher crud,
      KubernetesSerialization serialization,
      Map<String, Object> versionInfo) {
    this.crud = crud;
    this.serialization = serialization;
    this.versionInfo = versionInfo;
  }

  /** Tells the dispatcher which server records its requests and where clients reach it. */
  void attach(MockWebServer server, String hostAndPort) {
    this.recorder = server;
    this.serverAddress = hostAndPort;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    trimRecordedRequests();
    try {
      return route(request);
    } catch (IllegalArgumentException e) {
      return status(400, "BadRequest", e.getMessage());
    } catch (RuntimeException e) {
      // An exception escaping the dispatcher leaves the client waiting for ever; answer instead.
      return status(500, "InternalError", "testkube: " + e);
    }
  }

  private MockResponse route(RecordedRequest request) {
    String path = request.getPath();
    String bare = withoutQuery(path);
    String method = request.getMethod();
    if ("GET".equals(method)) {
      MockResponse fixed = fixedGet(bare);
      if (fixed != null) {
        return fixed;
      }
    }
    String contentType = Optional.ofNullable(request.getHeader("Content-Type")).orElse("");
    if (contentType.contains("protobuf")) {
      // The store understands JSON only. A real server accepts protobuf; kubectl's typed
      // "create <kind>" commands send it, while "apply -f" and Fabric8 send JSON.
      return status(
          415,
          "UnsupportedMediaType",
          "testkube accepts JSON bodies only; use 'kubectl apply -f' instead of "
              + "'kubectl create <kind>'");
    }
    Matcher scale = SCALE.matcher(bare);
    if (scale.matches()) {
      return scale(method, scale.group(1), contentType, body(request));
    }
    if ("PATCH".equals(method) && contentType.contains("strategic-merge-patch")) {
      return mergeInto(path, json(body(request)), false);
    }
    if ("PATCH".equals(method) && contentType.contains("apply-patch")) {
      return mergeInto(path, json(serialization.convertToJson(body(request))), true);
    }
    return finish(request, crud.dispatch(request));
  }

  /** Answers the paths that never reach the store, or returns null. */
  private MockResponse fixedGet(String path) {
    switch (path) {
      case "/version" -> {
        return ok(serialization.asJson(versionInfo));
      }
      case "/healthz", "/livez", "/readyz" -> {
        return new MockResponse()
            .setResponseCode(200)
            .setHeader("Content-Type", "text/plain")
            .setBody("ok");
      }
      default -> {
        if (path.equals("/openapi") || path.startsWith("/openapi/")) {
          return discovery
              .openApi(path)
              .map(doc -> ok(serialization.asJson(doc)))
              .orElseGet(this::notFound);
        }
        return discovery
            .document(path, serverAddress)
            .map(doc -> doc == Discovery.NOT_FOUND ? notFound() : ok(serialization.asJson(doc)))
            .orElse(null);
      }
    }
  }

  /** Post-processes a CRUD answer: content type, tables, and a Status body on 404. */
  private MockResponse finish(RecordedRequest request, MockResponse response) {
    if (response == null) {
      return status(405, "MethodNotAllowed", "the server does not allow this method");
    }
    if (response.getWebSocketListener() != null) {
      return response;
    }
    boolean hasBody = response.getBody() != null && response.getBody().size() > 0;
    if (response.code() == 404 && !hasBody) {
      return notFound();
    }
    if (!hasBody) {
      return response;
    }
    if ("GET".equals(request.getMethod())
        && response.code() == 200
        && TableConverter.wantsTable(request.getHeader("Accept"))) {
      String table = tables.toTable(utf8(response), this::printerColumns);
      if (table != null) {
        return ok(table);
      }
    }
    if (response.header("Content-Type") == null) {
      // kubectl decodes by content type, which the CRUD dispatcher leaves unset.
      response.setHeader("Content-Type", JSON);
    }
    return response;
  }

  /**
   * Applies a strategic merge patch, or a server-side apply when {@code apply} is set, by reading
   * the object, merging, and writing it back with an update.
   */
  private MockResponse mergeInto(String path, JsonNode patch, boolean apply) {
    if (patch == null || !patch.isObject()) {
      return status(400, "BadRequest", "the patch is not a JSON object");
    }
    for (int attempt = 0; ; attempt++) {
      MockResponse current = crud.handleGet(withoutQuery(path));
      if (current.code() == 404) {
        if (!apply) {
          return notFound();
        }
        // Server-side apply creates what does not exist yet.
        String collection = withoutQuery(path).replaceFirst("/[^/]+$", "");
        return finish(
            stub(collection),
            crud.handleCreate(request(HttpMethod.POST, collection, patch.toString())));
      }
      JsonNode merged = StrategicMerge.apply(json(utf8(current)), patch);
      MockResponse updated = crud.handleUpdate(request(HttpMethod.PUT, path, merged.toString()));
      boolean lockedByCaller = patch.path("metadata").has("resourceVersion");
      if (updated.code() != 409 || lockedByCaller || attempt >= CONFLICT_RETRIES) {
        return finish(stub(path), updated);
      }
    }
  }

  /** Serves the scale subresource of an apps/v1 workload as an autoscaling/v1 Scale. */
  private MockResponse scale(String method, String parentPath, String contentType, String body) {
    for (int attempt = 0; ; attempt++) {
      MockResponse current = crud.handleGet(parentPath);
      if (current.code() == 404) {
        return notFound();
      }
      JsonNode parent = json(utf8(current));
      if ("GET".equals(method)) {
        return ok(toScale(parent).toString());
      }
      JsonNode desired;
      if ("PUT".equals(method)) {
        desired = json(body);
      } else if ("PATCH".equals(method)) {
        JsonNode patch = json(body);
        desired =
            contentType.contains("json-patch")
                ? JsonPatch.apply(patch, toScale(parent))
                : StrategicMerge.apply(toScale(parent), patch);
      } else {
        return status(405, "MethodNotAllowed", "scale supports get, update and patch");
      }
      JsonNode replicas = desired.path("spec").path("replicas");
      if (!replicas.canConvertToInt() || replicas.asInt() < 0) {
        return status(422, "Invalid", "spec.replicas must be a non-negative integer");
      }
      ObjectNode updatedParent = parent.deepCopy();
      JsonNode spec = updatedParent.get("spec");
      (spec instanceof ObjectNode object ? object : updatedParent.putObject("spec"))
          .put("replicas", replicas.asInt());
      MockResponse written =
          crud.handleUpdate(request(HttpMethod.PUT, parentPath, updatedParent.toString()));
      if (written.code() == 409 && attempt < CONFLICT_RETRIES) {
        continue;
      }
      if (written.code() / 100 != 2) {
        return finish(stub(parentPath), written);
      }
      return ok(toScale(json(utf8(written))).toString());
    }
  }

  private ObjectNode toScale(JsonNode workload) {
    ObjectNode scale = mapper.createObjectNode();
    scale.put("apiVersion", "autoscaling/v1");
    scale.put("kind", "Scale");
    ObjectNode metadata = scale.putObject("metadata");
    JsonNode source = workload.path("metadata");
    for (String field :
        List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
      if (source.hasNonNull(field)) {
        metadata.set(field, source.get(field));
      }
    }
    scale.putObject("spec").put("replicas", workload.path("spec").path("replicas").asInt(1));
    ObjectNode status = scale.putObject("status");
    status.put("replicas", workload.path("status").path("replicas").asInt(0));
    StringJoiner selector = new StringJoiner(",");
    workload
        .path("spec")
        .path("selector")
        .path("matchLabels")
        .properties()
        .forEach(label -> selector.add(label.getKey() + "=" + label.getValue().asText()));
    status.put("selector", selector.toString());
    return scale;
  }

  /** The CustomResourceDefinitions stored in the CRUD dispatcher. */
  List<CustomResourceDefinition> storedCrds() {
    MockResponse stored = crud.handleGet(CRD_PATH);
    if (stored == null || stored.code() != 200 || stored.getBody() == null) {
      return List.of();
    }
    return serialization.unmarshal(utf8(stored), CustomResourceDefinitionList.class).getItems();
  }

  /** The additional printer columns of the CRD that defines {@code item}'s kind, if any. */
  private List<TableConverter.Column> printerColumns(JsonNode item) {
    String[] groupVersion = BuiltInApis.split(item.path("apiVersion").asText());
    String kind = item.path("kind").asText();
    return storedCrds().stream()
        .filter(
            crd ->
                crd.getSpec() != null
                    && groupVersion[0].equals(crd.getSpec().getGroup())
                    && crd.getSpec().getNames() != null
                    && kind.equals(crd.getSpec().getNames().getKind()))
        .flatMap(crd -> crd.getSpec().getVersions().stream())
        .filter(
            version ->
                groupVersion[1].equals(version.getName())
                    && version.getAdditionalPrinterColumns() != null)
        .flatMap(version -> version.getAdditionalPrinterColumns().stream())
        .map(
            column ->
                new TableConverter.Column(
                    column.getName(),
                    column.getType(),
                    object -> TableConverter.readJsonPath(object, column.getJsonPath())))
        .toList();
  }

  private JsonNode json(String body) {
    try {
      return mapper.readTree(body == null ? "" : body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("request body is not valid JSON", e);
    }
  }

  private static RecordedRequest request(HttpMethod method, String path, String body) {
    return new RecordedRequest(
        "HTTP/1.1",
        method,
        path,
        Headers.builder().add("Content-Type", JSON).build(),
        new Buffer(body.getBytes(StandardCharsets.UTF_8)));
  }

  /** A stand-in request for {@link #finish}, which only looks at the method and Accept. */
  private static RecordedRequest stub(String path) {
    return new RecordedRequest(
        "HTTP/1.1", HttpMethod.POST, path, Headers.builder().build(), new Buffer());
  }

  private static String body(RecordedRequest request) {
    return request.getBody() == null
        ? ""
        : new String(request.getBody().getBytes(), StandardCharsets.UTF_8);
  }

  private static String utf8(MockResponse response) {
    return new String(response.getBody().getBytes(), StandardCharsets.UTF_8);
  }

  private static String withoutQuery(String path) {
    int query = path.indexOf('?');
    String bare = query < 0 ? path : path.substring(0, query);
    return bare.length() > 1 && bare.endsWith("/") ? bare.substring(0, bare.length() - 1) : bare;
  }

  private static MockResponse ok(String json) {
    return new MockResponse().setResponseCode(200).setHeader("Content-Type", JSON).setBody(json);
  }

  private MockResponse notFound() {
    return status(404, "NotFound", "the server could not find the requested resource");
  }

  private MockResponse status(int code, String reason, String message) {
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", JSON)
        .setBody(
            serialization.asJson(
                new StatusBuilder()
                    .withApiVersion("v1")
                    .withKind("Status")
                    .withStatus("Failure")
                    .withReason(reason)
                    .withMessage(message)
                    .withCode(code)
                    .build()));
  }

  private void trimRecordedRequests() {
    MockWebServer server = recorder;
    if (server != null && server.getRequestCount() > RECORDED_REQUEST_LIMIT) {
      server.reset();
    }
  }
}

package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A small client for OPA's REST API (v1), over {@code java.net.http}: upload a policy module, write
 * a data document, evaluate a document, check health.
 *
 * <p>OPA's API is locked to the hub: OPA runs with token authentication and an authorization policy
 * (policies/system/authz) that admits only the hub's token, which this client sends as a bearer
 * token on every call. The token is never logged nor put into a message.
 *
 * <p>Every call has explicit timeouts (connect 2 s, whole request 5 s by default), so a hung OPA
 * cannot hold a request thread or a database lock for long. Anything that keeps OPA from answering
 * becomes an {@link OpaUnavailableException}; callers fail closed and may retry.
 */
public class OpaClient implements AutoCloseable {
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);

  /** Policy ids and document paths: slash-separated segments of safe characters, no dot-dot. */
  private static final Pattern PATH = Pattern.compile("[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI base;
  private final String display;
  private final Duration requestTimeout;
  private final HttpClient http;
  private final String authorization;

  /** A client with the default timeouts and no token (an OPA whose API is open). */
  public OpaClient(URI baseUrl) {
    this(baseUrl, DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, null);
  }

  /** A client with the default timeouts that authenticates with {@code token}. */
  public OpaClient(URI baseUrl, String token) {
    this(baseUrl, DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, token);
  }

  public OpaClient(URI baseUrl, Duration connectTimeout, Duration requestTimeout) {
    this(baseUrl, connectTimeout, requestTimeout, null);
  }

  /**
   * @param baseUrl OPA's address, e.g. {@code http://127.0.0.1:8181}
   * @param connectTimeout how long to wait for a TCP connection
   * @param requestTimeout how long to wait for a whole answer
   * @param token the bearer token OPA's authorization policy admits; null or blank sends none
   */
  public OpaClient(URI baseUrl, Duration connectTimeout, Duration requestTimeout, String token) {
    if (baseUrl == null || baseUrl.getScheme() == null || baseUrl.getHost() == null) {
      throw new IllegalArgumentException(
          "the OPA URL must be absolute, e.g. http://127.0.0.1:8181");
    }
    String s = baseUrl.toString();
    this.base = URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
    // Messages and logs name OPA by scheme, host and port only: a URL may carry credentials.
    this.display =
        baseUrl.getScheme()
            + "://"
            + baseUrl.getHost()
            + (baseUrl.getPort() > 0 ? ":" + baseUrl.getPort() : "");
    this.requestTimeout = requestTimeout;
    this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).build();
    this.authorization = token == null || token.isBlank() ? null : "Bearer " + token.strip();
  }

  /** OPA's address as safe to print: scheme, host and port. */
  public String address() {
    return display;
  }

  /**
   * Uploads (creates or replaces) a policy module. OPA compiles it together with every module it
   * already holds and keeps its previous state when compilation fails.
   *
   * @param id the policy id, e.g. {@code gitopshq/approval}
   * @param rego the module text
   * @throws PolicyCompileException OPA refused the module (400); carries OPA's error list
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public void putPolicy(String id, String rego) {
    HttpRequest request =
        request("/v1/policies/" + checkPath(id))
            .header("Content-Type", "text/plain; charset=utf-8")
            .PUT(HttpRequest.BodyPublishers.ofString(rego))
            .build();
    HttpResponse<String> response = send(request, "upload policy " + id);
    if (response.statusCode() == 200) {
      return;
    }
    if (response.statusCode() == 400) {
      throw new PolicyCompileException(id, errors(response.body()));
    }
    throw unexpected("upload policy " + id, response);
  }

  /**
   * The text of a policy module as OPA holds it ({@code GET /v1/policies/<id>}, its {@code raw}
   * field): what the republisher compares with the hub's version.
   *
   * @return the module text, or empty when OPA holds no module with that id
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public java.util.Optional<String> getPolicy(String id) {
    HttpRequest request = request("/v1/policies/" + checkPath(id)).GET().build();
    HttpResponse<String> response = send(request, "read policy " + id);
    if (response.statusCode() == 404) {
      return java.util.Optional.empty();
    }
    if (response.statusCode() != 200) {
      throw unexpected("read policy " + id, response);
    }
    JsonNode raw = parse(response.body(), "read policy " + id).path("result").get("raw");
    return raw == null || !raw.isTextual()
        ? java.util.Optional.empty()
        : java.util.Optional.of(raw.asText());
  }

  /**
   * The ids of every policy module OPA holds ({@code GET /v1/policies}).
   *
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public java.util.List<String> listPolicyIds() {
    HttpRequest request = request("/v1/policies").GET().build();
    HttpResponse<String> response = send(request, "list policies");
    if (response.statusCode() != 200) {
      throw unexpected("list policies", response);
    }
    java.util.List<String> ids = new java.util.ArrayList<>();
    parse(response.body(), "list policies")
        .path("result")
        .forEach(p -> ids.add(p.path("id").asText()));
    return ids;
  }

  /**
   * Removes a policy module. Removing one that does not exist is not an error.
   *
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public void deletePolicy(String id) {
    HttpRequest request = request("/v1/policies/" + checkPath(id)).DELETE().build();
    HttpResponse<String> response = send(request, "delete policy " + id);
    if (response.statusCode() != 200 && response.statusCode() != 404) {
      throw unexpected("delete policy " + id, response);
    }
  }

  /**
   * Creates or replaces the base document at {@code path} ({@code PUT /v1/data/<path>}): data that
   * policies read, such as the freeze windows at {@code gitopshq_data/freeze_windows}. OPA keeps it
   * in memory only; whoever writes it writes it again after OPA restarts.
   *
   * @param path the document's path with slashes, outside every policy package (OPA refuses to
   *     write under a path a policy defines)
   * @param value the whole document
   * @throws OpaException OPA refused the write
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public void putData(String path, JsonNode value) {
    if (value == null || value.isMissingNode()) {
      throw new IllegalArgumentException("no document to write at " + path);
    }
    String payload;
    try {
      payload = JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the document cannot be written as JSON", e);
    }
    HttpRequest request =
        request("/v1/data/" + checkPath(path))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(payload))
            .build();
    HttpResponse<String> response = send(request, "write data " + path);
    if (response.statusCode() != 204 && response.statusCode() != 200) {
      throw unexpected("write data " + path, response);
    }
  }

  /**
   * Evaluates the document at {@code path} ({@code POST /v1/data/<path>} with {@code {"input":
   * input}}).
   *
   * @param path the document's path with slashes, e.g. {@code gitopshq/approval} for the whole
   *     package or {@code gitopshq/approval/decision} for one rule
   * @param input the input document; null evaluates without input
   * @return the result, or a {@link MissingNode} when the document is undefined (nothing loaded at
   *     that path, or no rule produced a value): never null
   * @throws PolicyEvaluationException evaluation failed inside OPA (e.g. conflicting rule values)
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public JsonNode evaluate(String path, JsonNode input) {
    ObjectNode body = JSON.createObjectNode();
    if (input != null && !input.isNull() && !input.isMissingNode()) {
      body.set("input", input);
    }
    String payload;
    try {
      payload = JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the input document cannot be written as JSON", e);
    }
    HttpRequest request =
        request("/v1/data/" + checkPath(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(payload))
            .build();
    HttpResponse<String> response = send(request, "evaluate " + path);
    if (response.statusCode() == 200) {
      JsonNode answer = parse(response.body(), "evaluate " + path);
      JsonNode result = answer.get("result");
      return result == null ? MissingNode.getInstance() : result;
    }
    if (response.statusCode() == 500) {
      List<OpaError> errors = errors(response.body());
      throw new PolicyEvaluationException(
          "evaluating "
              + path
              + " failed in OPA: "
              + (errors.isEmpty()
                  ? "status 500"
                  : errors.stream().map(OpaError::describe).reduce((a, b) -> a + "; " + b).get()));
    }
    throw unexpected("evaluate " + path, response);
  }

  /** True when OPA answers its health check; never throws. */
  public boolean healthy() {
    try {
      HttpResponse<String> r =
          http.send(request("/health").GET().build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    http.close();
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(requestTimeout);
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return b;
  }

  private HttpResponse<String> send(HttpRequest request, String what) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (HttpTimeoutException e) {
      throw new OpaUnavailableException(
          "OPA at " + display + " did not answer in time (" + what + ")", e);
    } catch (IOException e) {
      throw new OpaUnavailableException(
          "OPA at " + display + " is unreachable (" + what + "): " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OpaUnavailableException("interrupted while waiting for OPA (" + what + ")", e);
    }
  }

  /** OPA's {@code errors} array; when it has none, its top-level code and message as one error. */
  private static List<OpaError> errors(String body) {
    List<OpaError> out = new ArrayList<>();
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      return List.of(new OpaError("unreadable_response", "OPA's answer is not JSON", null));
    }
    if (root == null) {
      return out;
    }
    for (JsonNode e : root.path("errors")) {
      JsonNode loc = e.get("location");
      OpaError.Location location =
          loc == null || !loc.isObject()
              ? null
              : new OpaError.Location(
                  loc.path("file").asText(""), loc.path("row").asInt(0), loc.path("col").asInt(0));
      out.add(new OpaError(e.path("code").asText(""), e.path("message").asText(""), location));
    }
    if (out.isEmpty() && root.has("message")) {
      out.add(new OpaError(root.path("code").asText(""), root.path("message").asText(""), null));
    }
    return out;
  }

  private static JsonNode parse(String body, String what) {
    try {
      JsonNode node = JSON.readTree(body);
      if (node == null || !node.isObject()) {
        throw new OpaException("OPA's answer to " + what + " is not a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new OpaException("OPA's answer to " + what + " is not JSON", e);
    }
  }

  private OpaException unexpected(String what, HttpResponse<String> response) {
    int status = response.statusCode();
    if (status == 401) {
      return new OpaException(
          "OPA at "
              + display
              + " refused the hub's credentials (401) to "
              + what
              + ": set GITOPSHQ_OPA_TOKEN to the token OPA's authorization policy admits");
    }
    List<OpaError> errors = errors(response.body());
    String detail = errors.isEmpty() ? "" : ": " + errors.get(0).describe();
    // A proxy or load balancer in front of OPA answers 502-504 while OPA is down.
    if (status == 502 || status == 503 || status == 504) {
      return new OpaUnavailableException(
          "OPA at " + display + " is unavailable (" + what + "): status " + status + detail);
    }
    return new OpaException("OPA at " + display + " answered " + status + " to " + what + detail);
  }

  private static String checkPath(String path) {
    if (path == null || !PATH.matcher(path).matches()) {
      throw new IllegalArgumentException(
          "an OPA policy id or document path is slash-separated letters, digits, '-' and '_'; got '"
              + path
              + "'");
    }
    return path;
  }

  private static String describe(IOException e) {
    if (e instanceof java.net.ConnectException) {
      return "connection refused";
    }
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
  }
}

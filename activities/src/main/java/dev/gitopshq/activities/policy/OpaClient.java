package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.EventListener;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;

/**
 * A small client for OPA's REST API (v1): upload a policy module, write a data document, evaluate a
 * document, check health.
 *
 * <p><b>Transport.</b> By default the client speaks cleartext HTTP/2 with prior knowledge ({@link
 * Transport#H2C}), which OPA serves when it runs with {@code --h2c}: every call of the hub, from
 * any thread, is a stream on one long-lived TCP connection (OkHttp's pool keeps it; a connection
 * that broke, e.g. because OPA restarted, is dropped and the next call opens a new one).
 * java.net.http cannot be used for this: it reaches cleartext HTTP/2 only by {@code Upgrade: h2c},
 * which OPA does not answer, and OPA offers no h2 by ALPN over TLS either. {@link Transport#HTTP1}
 * is for an OPA started without {@code --h2c}: HTTP/1.1 with keep-alive. An {@code https} URL
 * negotiates by ALPN (h2 when OPA offers it, otherwise HTTP/1.1). A call that finds its connection
 * already broken is sent once more on a new one (OkHttp's retry on connection failure); every call
 * here is idempotent (reads, whole-document puts, deletes, evaluations).
 *
 * <p>OPA's API is locked to the hub: OPA runs with token authentication and an authorization policy
 * (policies/system/authz) that admits only the hub's token, which this client sends as a bearer
 * token on every call, and only for the calls this client makes for the hub (module ids and
 * document paths of the hub's shapes; the one data document it writes is an organization's freeze
 * windows). The token is never logged nor put into a message; nothing here logs request or answer
 * bodies (input documents, policy text).
 *
 * <p>Every call has explicit timeouts (connect 2 s, whole call 5 s by default), so a hung OPA
 * cannot hold a request thread or a database lock for long, and every answer is read up to a bound
 * ({@link #MAX_ANSWER_BYTES}; the policy listing, which carries every module's text and syntax
 * tree, {@link #MAX_LISTING_BYTES}). Anything that keeps OPA from answering becomes an {@link
 * OpaUnavailableException}; callers fail closed and may retry.
 */
public class OpaClient implements AutoCloseable {
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);

  /** The largest answer read from OPA, except the policy listing. */
  public static final int MAX_ANSWER_BYTES = 8 * 1024 * 1024;

  /** The largest policy listing read from OPA (every module's text and syntax tree). */
  public static final int MAX_LISTING_BYTES = 64 * 1024 * 1024;

  /** How the client talks to OPA over a cleartext ({@code http}) URL. */
  public enum Transport {
    /** Cleartext HTTP/2 with prior knowledge: OPA runs with {@code --h2c}. The default. */
    H2C,
    /** HTTP/1.1 with keep-alive: for an OPA started without {@code --h2c}. */
    HTTP1;

    /** {@code h2c} or {@code http1} (case-insensitive), as {@code GITOPSHQ_OPA_PROTOCOL} says. */
    public static Transport parse(String value) {
      String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
      return switch (v) {
        case "", "h2c" -> H2C;
        case "http1", "http/1.1" -> HTTP1;
        default ->
            throw new IllegalArgumentException(
                "the OPA protocol is 'h2c' (OPA runs with --h2c) or 'http1'; got '" + value + "'");
      };
    }
  }

  /** Policy ids and document paths: slash-separated segments of safe characters, no dot-dot. */
  private static final Pattern PATH = Pattern.compile("[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType JSON_TYPE = MediaType.get("application/json");
  private static final MediaType TEXT_TYPE = MediaType.get("text/plain; charset=utf-8");
  private static final byte[] EMPTY_INPUT = "{}".getBytes(StandardCharsets.UTF_8);

  private final String base;
  private final String display;
  private final Transport transport;
  private final OkHttpClient http;
  private final String authorization;
  private final AtomicLong connections = new AtomicLong();
  private volatile Protocol lastProtocol;

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

  public OpaClient(URI baseUrl, Duration connectTimeout, Duration requestTimeout, String token) {
    this(baseUrl, connectTimeout, requestTimeout, token, Transport.H2C);
  }

  /**
   * @param baseUrl OPA's address, e.g. {@code http://127.0.0.1:8181}
   * @param connectTimeout how long to wait for a TCP connection
   * @param requestTimeout how long to wait for a whole answer
   * @param token the bearer token OPA's authorization policy admits; null or blank sends none
   * @param transport h2c (OPA runs with {@code --h2c}) or HTTP/1.1, for an {@code http} URL
   */
  public OpaClient(
      URI baseUrl,
      Duration connectTimeout,
      Duration requestTimeout,
      String token,
      Transport transport) {
    if (baseUrl == null
        || baseUrl.getScheme() == null
        || baseUrl.getHost() == null
        || !(baseUrl.getScheme().equalsIgnoreCase("http")
            || baseUrl.getScheme().equalsIgnoreCase("https"))) {
      throw new IllegalArgumentException(
          "the OPA URL must be absolute http or https, e.g. http://127.0.0.1:8181");
    }
    boolean secure = baseUrl.getScheme().equalsIgnoreCase("https");
    // Messages and logs name OPA by scheme, host and port only: a URL may carry credentials,
    // which are not sent either (OPA takes the bearer token).
    this.display =
        baseUrl.getScheme().toLowerCase(Locale.ROOT)
            + "://"
            + baseUrl.getHost()
            + (baseUrl.getPort() > 0 ? ":" + baseUrl.getPort() : "");
    String path = baseUrl.getRawPath() == null ? "" : baseUrl.getRawPath();
    this.base = display + (path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
    this.transport = transport == null ? Transport.H2C : transport;
    List<Protocol> protocols =
        this.transport == Transport.HTTP1
            ? List.of(Protocol.HTTP_1_1)
            : secure
                ? List.of(Protocol.HTTP_2, Protocol.HTTP_1_1)
                : List.of(Protocol.H2_PRIOR_KNOWLEDGE);
    this.http =
        new OkHttpClient.Builder()
            .protocols(protocols)
            .connectTimeout(connectTimeout)
            .readTimeout(requestTimeout)
            .writeTimeout(requestTimeout)
            .callTimeout(requestTimeout)
            // One HTTP/2 connection carries every call; HTTP/1.1 keeps a few alive.
            .connectionPool(new ConnectionPool(8, 5, TimeUnit.MINUTES))
            .followRedirects(false)
            .eventListener(
                new EventListener() {
                  @Override
                  public void connectStart(Call call, InetSocketAddress address, Proxy proxy) {
                    connections.incrementAndGet();
                  }
                })
            .build();
    this.authorization = token == null || token.isBlank() ? null : "Bearer " + token.strip();
  }

  /** OPA's address as safe to print: scheme, host and port. */
  public String address() {
    return display;
  }

  /** The transport this client was built for. */
  public Transport transport() {
    return transport;
  }

  /**
   * The protocol of OPA's latest answer: {@code h2_prior_knowledge} (cleartext HTTP/2), {@code h2}
   * or {@code http/1.1}; empty before the first answer.
   */
  public String protocol() {
    Protocol p = lastProtocol;
    return p == null ? "" : p.toString();
  }

  /** How many TCP connections to OPA this client has opened (one while the connection lives). */
  public long connectionsOpened() {
    return connections.get();
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
    Request request =
        request("/v1/policies/" + checkPath(id)).put(RequestBody.create(rego, TEXT_TYPE)).build();
    Answer answer = send(request, "upload policy " + id, MAX_ANSWER_BYTES);
    if (answer.status() == 200) {
      return;
    }
    if (answer.status() == 400) {
      throw new PolicyCompileException(id, errors(answer.body()));
    }
    throw unexpected("upload policy " + id, answer);
  }

  /**
   * The text of a policy module as OPA holds it ({@code GET /v1/policies/<id>}, its {@code raw}
   * field): what the republisher compares with the hub's version.
   *
   * @return the module text, or empty when OPA holds no module with that id
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public Optional<String> getPolicy(String id) {
    Request request = request("/v1/policies/" + checkPath(id)).get().build();
    Answer answer = send(request, "read policy " + id, MAX_ANSWER_BYTES);
    if (answer.status() == 404) {
      return Optional.empty();
    }
    if (answer.status() != 200) {
      throw unexpected("read policy " + id, answer);
    }
    JsonNode raw = parse(answer.body(), "read policy " + id).path("result").get("raw");
    return raw == null || !raw.isTextual() ? Optional.empty() : Optional.of(raw.asText());
  }

  /**
   * The ids of every policy module OPA holds ({@code GET /v1/policies}).
   *
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public List<String> listPolicyIds() {
    Request request = request("/v1/policies").get().build();
    Answer answer = send(request, "list policies", MAX_LISTING_BYTES);
    if (answer.status() != 200) {
      throw unexpected("list policies", answer);
    }
    List<String> ids = new ArrayList<>();
    parse(answer.body(), "list policies")
        .path("result")
        .forEach(p -> ids.add(p.path("id").asText()));
    return ids;
  }

  /**
   * One module as OPA holds it.
   *
   * @param id the policy id, as whoever uploaded it chose it (any text: escape it before logging)
   * @param raw the module text
   * @param packagePath the segments of the module's package after {@code data}, from OPA's parse of
   *     it, e.g. {@code [system, authz]}
   */
  public record Module(String id, String raw, List<String> packagePath) {}

  /**
   * Every module OPA holds, with its text and package ({@code GET /v1/policies}). OPA's answer also
   * carries every module's syntax tree; it is skipped while reading, except the package.
   *
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public List<Module> listPolicies() {
    Request request = request("/v1/policies").get().build();
    Answer answer = send(request, "list policies", MAX_LISTING_BYTES);
    if (answer.status() != 200) {
      throw unexpected("list policies", answer);
    }
    try (JsonParser p = JSON.getFactory().createParser(answer.body())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new OpaException("OPA's answer to list policies is not a JSON object");
      }
      List<Module> modules = new ArrayList<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (!field.equals("result") || value != JsonToken.START_ARRAY) {
          p.skipChildren();
          continue;
        }
        while (p.nextToken() == JsonToken.START_OBJECT) {
          modules.add(module(p));
        }
      }
      return modules;
    } catch (JsonProcessingException e) {
      throw new OpaException("OPA's answer to list policies is not JSON", e);
    } catch (IOException e) {
      throw new OpaException("OPA's answer to list policies cannot be read", e);
    }
  }

  /** One entry of the listing, the parser on its START_OBJECT; leaves it on its END_OBJECT. */
  private static Module module(JsonParser p) throws IOException {
    String id = null;
    String raw = null;
    List<String> pkg = List.of();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (field.equals("id") && value == JsonToken.VALUE_STRING) {
        id = p.getText();
      } else if (field.equals("raw") && value == JsonToken.VALUE_STRING) {
        raw = p.getText();
      } else if (field.equals("ast") && value == JsonToken.START_OBJECT) {
        pkg = packagePath(p);
      } else {
        p.skipChildren();
      }
    }
    if (id == null || raw == null) {
      throw new OpaException("OPA's answer to list policies has a module without id or text");
    }
    return new Module(id, raw, pkg);
  }

  /** {@code ast.package.path} without its leading {@code data}; the parser on the AST's object. */
  private static List<String> packagePath(JsonParser p) throws IOException {
    List<String> path = new ArrayList<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (!field.equals("package") || value != JsonToken.START_OBJECT) {
        p.skipChildren();
        continue;
      }
      JsonNode pkg = JSON.readTree(p);
      for (JsonNode term : pkg.path("path")) {
        path.add(term.path("value").asText());
      }
    }
    if (!path.isEmpty() && path.get(0).equals("data")) {
      path.remove(0);
    }
    return path;
  }

  /**
   * Removes the module with exactly this id, whatever characters it holds (an id {@link
   * #listPolicies} returned: whoever uploaded it chose it). The id travels percent-encoded as one
   * path segment, slashes included, which OPA decodes. Removing one that does not exist is not an
   * error.
   *
   * @throws OpaException OPA refused (e.g. another module depends on it)
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public void deleteListedPolicy(String id) {
    if (id == null || id.isEmpty()) {
      throw new IllegalArgumentException("no policy id to delete");
    }
    HttpUrl url = HttpUrl.get(base + "/v1/policies/").newBuilder().addPathSegment(id).build();
    Request.Builder b = new Request.Builder().url(url).delete();
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    Answer answer = send(b.build(), "delete a module", MAX_ANSWER_BYTES);
    if (answer.status() != 200 && answer.status() != 404) {
      throw unexpected("delete a module", answer);
    }
  }

  /**
   * Removes a policy module. Removing one that does not exist is not an error.
   *
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public void deletePolicy(String id) {
    Request request = request("/v1/policies/" + checkPath(id)).delete().build();
    Answer answer = send(request, "delete policy " + id, MAX_ANSWER_BYTES);
    if (answer.status() != 200 && answer.status() != 404) {
      throw unexpected("delete policy " + id, answer);
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
    byte[] payload;
    try {
      payload = JSON.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the document cannot be written as JSON", e);
    }
    Request request =
        request("/v1/data/" + checkPath(path)).put(RequestBody.create(payload, JSON_TYPE)).build();
    Answer answer = send(request, "write data " + path, MAX_ANSWER_BYTES);
    if (answer.status() != 204 && answer.status() != 200) {
      throw unexpected("write data " + path, answer);
    }
  }

  /**
   * Evaluates the document at {@code path} ({@code POST /v1/data/<path>} with {@code {"input":
   * input}}). The input is written straight into the request's bytes and only the answer's {@code
   * result} is read into a tree.
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
    String what = "evaluate " + path;
    Request request =
        request("/v1/data/" + checkPath(path))
            .post(RequestBody.create(inputDocument(input), JSON_TYPE))
            .build();
    Answer answer = send(request, what, MAX_ANSWER_BYTES);
    if (answer.status() == 200) {
      return result(answer.body(), what);
    }
    if (answer.status() == 500) {
      List<OpaError> errors = errors(answer.body());
      throw new PolicyEvaluationException(
          "evaluating "
              + path
              + " failed in OPA: "
              + (errors.isEmpty()
                  ? "status 500"
                  : errors.stream().map(OpaError::describe).reduce((a, b) -> a + "; " + b).get()));
    }
    throw unexpected(what, answer);
  }

  /** True when OPA answers its health check; never throws. */
  public boolean healthy() {
    try {
      return send(request("/health").get().build(), "health", MAX_ANSWER_BYTES).status() == 200;
    } catch (OpaException e) {
      return false;
    }
  }

  @Override
  public void close() {
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  /** {@code {"input": input}}, or {@code {}} without input, as bytes. */
  private static byte[] inputDocument(JsonNode input) {
    if (input == null || input.isNull() || input.isMissingNode()) {
      return EMPTY_INPUT;
    }
    try (ByteArrayBuilder bytes = new ByteArrayBuilder(512);
        JsonGenerator g = JSON.getFactory().createGenerator(bytes)) {
      g.writeStartObject();
      g.writeFieldName("input");
      JSON.writeTree(g, input);
      g.writeEndObject();
      g.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new IllegalArgumentException("the input document cannot be written as JSON", e);
    }
  }

  /** The {@code result} member of OPA's answer; the other members are skipped, not read. */
  private static JsonNode result(byte[] body, String what) {
    try (JsonParser p = JSON.getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new OpaException("OPA's answer to " + what + " is not a JSON object");
      }
      JsonNode result = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        if (result == null && name.equals("result")) {
          result = JSON.readTree(p);
        } else {
          p.skipChildren();
        }
      }
      return result == null ? MissingNode.getInstance() : result;
    } catch (JsonProcessingException e) {
      throw new OpaException("OPA's answer to " + what + " is not JSON", e);
    } catch (IOException e) {
      throw new OpaException("OPA's answer to " + what + " cannot be read", e);
    }
  }

  private Request.Builder request(String path) {
    HttpUrl url = HttpUrl.get(base + path);
    Request.Builder b = new Request.Builder().url(url);
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return b;
  }

  /** A status and the whole body, read up to {@code limit} bytes. */
  private record Answer(int status, byte[] body) {}

  private Answer send(Request request, String what, int limit) {
    try (Response response = http.newCall(request).execute()) {
      lastProtocol = response.protocol();
      ResponseBody body = response.body();
      byte[] bytes = body == null ? new byte[0] : readBounded(body, limit, what);
      return new Answer(response.code(), bytes);
    } catch (InterruptedIOException e) {
      if (Thread.currentThread().isInterrupted()) {
        throw new OpaUnavailableException("interrupted while waiting for OPA (" + what + ")", e);
      }
      throw new OpaUnavailableException(
          "OPA at " + display + " did not answer in time (" + what + ")" + hint(), e);
    } catch (IOException e) {
      throw new OpaUnavailableException(
          "OPA at "
              + display
              + " is unreachable ("
              + what
              + "): "
              + describe(e)
              + (e instanceof ConnectException ? "" : hint()),
          e);
    }
  }

  private byte[] readBounded(ResponseBody body, int limit, String what) throws IOException {
    if (body.contentLength() > limit) {
      throw new OpaException(
          "OPA's answer to " + what + " is larger than " + limit + " bytes; it was not read");
    }
    BufferedSource source = body.source();
    if (source.request(limit + 1L)) {
      throw new OpaException(
          "OPA's answer to " + what + " is larger than " + limit + " bytes; it was not read");
    }
    return source.getBuffer().readByteArray();
  }

  /**
   * What to check when the h2c preface gets no HTTP/2 answer: an OPA without {@code --h2c} answers
   * it as a malformed HTTP/1.1 request.
   */
  private String hint() {
    return transport == Transport.H2C && display.startsWith("http:")
        ? " (the hub speaks cleartext HTTP/2 to OPA: run OPA with --h2c, or set"
            + " GITOPSHQ_OPA_PROTOCOL=http1)"
        : "";
  }

  /** OPA's {@code errors} array; when it has none, its top-level code and message as one error. */
  private static List<OpaError> errors(byte[] body) {
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

  private static JsonNode parse(byte[] body, String what) {
    try {
      JsonNode node = JSON.readTree(body);
      if (node == null || !node.isObject()) {
        throw new OpaException("OPA's answer to " + what + " is not a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new OpaException("OPA's answer to " + what + " is not JSON", e);
    } catch (IOException e) {
      throw new OpaException("OPA's answer to " + what + " cannot be read", e);
    }
  }

  private OpaException unexpected(String what, Answer answer) {
    int status = answer.status();
    if (status == 401) {
      return new OpaException(
          "OPA at "
              + display
              + " refused the hub's credentials (401) to "
              + what
              + ": set GITOPSHQ_OPA_TOKEN to the token OPA's authorization policy admits, and run"
              + " OPA with this hub's policies/system/authz (it admits only the calls the hub"
              + " makes)");
    }
    List<OpaError> errors = errors(answer.body());
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
    if (e instanceof ConnectException) {
      return "connection refused";
    }
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
  }
}

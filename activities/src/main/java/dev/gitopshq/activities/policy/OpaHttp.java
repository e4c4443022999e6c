package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.policy.OpaClient.Transport;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.EventListener;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;

/**
 * The wire under {@link OpaClient}: one OkHttp client per OPA (cleartext HTTP/2 with prior
 * knowledge, HTTP/1.1 with keep-alive, or ALPN over {@code https}), the bearer token on every
 * request, the explicit connect and call timeouts, answers read whole up to a bound and refused
 * unread beyond it, and the translation of what went wrong into {@link OpaUnavailableException}
 * (OPA unreachable, too slow, or behind a proxy answering 502-504) or {@link OpaException} (OPA
 * answered, but not as asked), with OPA's own error list parsed out of its answer. It also owns the
 * rule for policy ids and document paths, and OPA's address as safe to print (scheme, host and
 * port: never credentials from the URL, never the token).
 */
final class OpaHttp implements AutoCloseable {
  /** Policy ids and document paths: slash-separated segments of safe characters, no dot-dot. */
  private static final Pattern PATH = Pattern.compile("[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*");

  static final ObjectMapper JSON = new ObjectMapper();

  private final String base;
  private final String display;
  private final Transport transport;
  private final OkHttpClient http;
  private final String authorization;
  private final AtomicLong connections = new AtomicLong();
  private volatile Protocol lastProtocol;

  /** A status and the whole body, read up to {@code limit} bytes. */
  record Answer(int status, byte[] body) {}

  /** See {@link OpaClient#OpaClient(URI, Duration, Duration, String, Transport)}. */
  OpaHttp(
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

  /** {@link OpaClient#address}. */
  String address() {
    return display;
  }

  /** {@link OpaClient#transport}. */
  Transport transport() {
    return transport;
  }

  /** {@link OpaClient#protocol}. */
  String protocol() {
    Protocol p = lastProtocol;
    return p == null ? "" : p.toString();
  }

  /** {@link OpaClient#connectionsOpened}. */
  long connectionsOpened() {
    return connections.get();
  }

  /** {@link OpaClient#healthy}. */
  boolean healthy() {
    try {
      return send(request("/health").get().build(), "health", OpaClient.MAX_ANSWER_BYTES).status()
          == 200;
    } catch (OpaException e) {
      return false;
    }
  }

  @Override
  public void close() {
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  /** A request to {@code path} under OPA's base URL, with the bearer token. */
  Request.Builder request(String path) {
    return request(url(path));
  }

  /** A request to {@code url}, with the bearer token. */
  Request.Builder request(HttpUrl url) {
    Request.Builder b = new Request.Builder().url(url);
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return b;
  }

  /** {@code path} under OPA's base URL. */
  HttpUrl url(String path) {
    return HttpUrl.get(base + path);
  }

  /**
   * Sends {@code request} and reads the whole answer, up to {@code limit} bytes.
   *
   * @param what the call, as messages name it (never a secret)
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   * @throws OpaException the answer is larger than {@code limit}
   */
  Answer send(Request request, String what, int limit) {
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
  static List<OpaError> errors(byte[] body) {
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

  /** OPA's answer as a JSON object. */
  static JsonNode parse(byte[] body, String what) {
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

  /**
   * The failure an answer that is not the expected one stands for: a refused token, a proxy
   * answering for an OPA that is down, or OPA's own refusal with its first error.
   */
  OpaException unexpected(String what, Answer answer) {
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

  /** {@code path} when it is a policy id or document path of the hub's shape. */
  static String checkPath(String path) {
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

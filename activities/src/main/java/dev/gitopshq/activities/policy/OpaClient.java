package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

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
 *
 * <p>This class is the one entry point the hub uses; the work is done by {@link OpaHttp} (the
 * connection, the token, timeouts, bounded answers and what a failure means), {@link OpaPolicies}
 * (the modules under {@code /v1/policies}) and {@link OpaDocuments} (the documents under {@code
 * /v1/data}: writes and evaluations).
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

  private final OpaHttp http;
  private final OpaPolicies policies;
  private final OpaDocuments documents;

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
    this.http = new OpaHttp(baseUrl, connectTimeout, requestTimeout, token, transport);
    this.policies = new OpaPolicies(http);
    this.documents = new OpaDocuments(http);
  }

  /** OPA's address as safe to print: scheme, host and port. */
  public String address() {
    return http.address();
  }

  /** The transport this client was built for. */
  public Transport transport() {
    return http.transport();
  }

  /**
   * The protocol of OPA's latest answer: {@code h2_prior_knowledge} (cleartext HTTP/2), {@code h2}
   * or {@code http/1.1}; empty before the first answer.
   */
  public String protocol() {
    return http.protocol();
  }

  /** How many TCP connections to OPA this client has opened (one while the connection lives). */
  public long connectionsOpened() {
    return http.connectionsOpened();
  }

  /** True when OPA answers its health check; never throws. */
  public boolean healthy() {
    return http.healthy();
  }

  @Override
  public void close() {
    http.close();
  }

  // ---- policy modules (OpaPolicies) ----------------------------------------------------

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
    policies.putPolicy(id, rego);
  }

  /**
   * The text of a policy module as OPA holds it ({@code GET /v1/policies/<id>}, its {@code raw}
   * field): what the republisher compares with the hub's version.
   *
   * @return the module text, or empty when OPA holds no module with that id
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public Optional<String> getPolicy(String id) {
    return policies.getPolicy(id);
  }

  /**
   * The ids of every policy module OPA holds ({@code GET /v1/policies}).
   *
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public List<String> listPolicyIds() {
    return policies.listPolicyIds();
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
    return policies.listPolicies();
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
    policies.deleteListedPolicy(id);
  }

  /**
   * Removes a policy module. Removing one that does not exist is not an error.
   *
   * @throws OpaUnavailableException OPA could not be reached or did not answer in time
   */
  public void deletePolicy(String id) {
    policies.deletePolicy(id);
  }

  // ---- documents (OpaDocuments) --------------------------------------------------------

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
    documents.putData(path, value);
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
    return documents.evaluate(path, input);
  }
}

package dev.gitopshq.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.activities.testing.FreePorts;
import dev.gitopshq.hub.gateway.AgentGateway;
import dev.gitopshq.hub.temporal.TemporalConfig;
import io.micrometer.core.instrument.Metrics;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * Starts real hubs for integration tests: the Spring Boot application on a random HTTP port, its
 * gRPC gateway on a chosen port, the real PostgreSQL (database gitopshq_test, wiped once per test
 * JVM) and the Temporal test server in-process. A hub can be stopped and started again on the same
 * ports, against the same database and Temporal server, to prove that nothing lives in memory.
 *
 * <p>Most integration tests need a hub with the default configuration and nothing else: they take
 * the one {@link #shared()} hub of their test JVM instead of starting their own (a hub start is
 * several seconds), or {@link #sharedWithOpa()} when they need the real OPA. A test on a shared hub
 * makes its own organizations, projects, clusters and members under names of its own, assumes
 * nothing about what other tests left in the database (as it already must: the database is wiped
 * once per JVM, not per class) and neither stops nor reconfigures the hub; a test that must, starts
 * a hub of its own with {@code new HubTestSupport()}.
 */
public final class HubTestSupport implements AutoCloseable {
  public static final String DB_URL =
      System.getenv()
          .getOrDefault("GITOPSHQ_TEST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/gitopshq_test");
  public static final String DB_USER =
      System.getenv().getOrDefault("GITOPSHQ_TEST_DB_USER", "gitopshq");
  public static final String DB_PASSWORD =
      System.getenv().getOrDefault("GITOPSHQ_TEST_DB_PASSWORD", "gitopshq");

  /** The owner's token every test hub is bootstrapped with. */
  public static final String OWNER_TOKEN = "ghq-test-bootstrap-owner-token-0123456789abcdef";

  /** Every test hub seals secrets with this key (base64 of 32 bytes), so any hub can open them. */
  public static final String ENCRYPTION_KEY = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

  private static boolean wiped;
  private static Path repos;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How often the {@link #sharedWithOpa()} hub makes sure OPA holds every policy. */
  public static final String SHARED_OPA_REPUBLISH_INTERVAL = "1s";

  private static HubTestSupport shared;
  private static HubTestSupport sharedWithOpa;

  /** True for the JVM's shared hubs: not stopped, restarted or closed by a test. */
  private boolean isShared;

  /** The OPA of the {@link #sharedWithOpa()} hub; null for every other hub. */
  private OpaTestServer opa;

  private final TestWorkflowEnvironment temporal;
  private final TemporalDevServer devServer;
  private boolean sharesTemporal;
  private final Path dataDir;
  private final HttpClient http = HttpClient.newHttpClient();
  private final Map<String, Object> extraProperties = new HashMap<>();
  private final Map<String, Object> singletons = new HashMap<>();
  private ConfigurableApplicationContext hub;
  private int grpcPort;
  private int httpPort;

  /** A hub on the in-process Temporal test server. */
  public HubTestSupport() {
    this(false);
  }

  /**
   * @param realTemporal run on the real Temporal dev server instead of the in-process test server
   *     (for tests that stop and start the hub while workflows are open)
   */
  public HubTestSupport(boolean realTemporal) {
    wipeDatabaseOnce();
    if (realTemporal) {
      devServer = TemporalDevServer.start();
      temporal = null;
    } else {
      devServer = null;
      temporal =
          TestWorkflowEnvironment.newInstance(
              TestEnvironmentOptions.newBuilder()
                  .setUseTimeskipping(false)
                  // The hub's registry joins Micrometer's global one, so its /actuator/prometheus
                  // shows Temporal's and the workflows' metrics as in production.
                  .setMetricsScope(
                      TemporalConfig.metricsScope(Metrics.globalRegistry, Duration.ofMillis(200)))
                  .build());
    }
    try {
      dataDir = Files.createTempDirectory("gitopshq-hub-test");
      grpcPort = freePort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A second replica of {@code first}: the same database, repositories and Temporal server, its own
   * HTTP and gRPC ports (start it after {@code first}; close it before).
   */
  public HubTestSupport(HubTestSupport first) {
    if (first.temporal == null) {
      throw new IllegalArgumentException("replicas share the in-process Temporal test server");
    }
    this.temporal = first.temporal;
    this.devServer = null;
    this.sharesTemporal = true;
    try {
      dataDir = Files.createTempDirectory("gitopshq-hub-test");
      grpcPort = freePort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A hub on {@code temporal}, a test server the caller made and closes: e.g. one with time
   * skipping, where {@link TestWorkflowEnvironment#sleep} moves the workflows' clock (give the hub
   * a {@link java.time.Clock} that follows it with {@link #singleton}).
   */
  public HubTestSupport(TestWorkflowEnvironment temporal) {
    wipeDatabaseOnce();
    this.temporal = temporal;
    this.devServer = null;
    this.sharesTemporal = true;
    try {
      dataDir = Files.createTempDirectory("gitopshq-hub-test");
      grpcPort = freePort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The hub of this test JVM with the default configuration (the in-process Temporal test server,
   * no OPA), started on first use and stopped when the JVM exits. {@link #close()} on it does
   * nothing; {@link #stop()}, {@link #start()}, {@link #property} and {@link #singleton} refuse.
   */
  public static synchronized HubTestSupport shared() {
    if (shared == null) {
      shared = startShared(new HubTestSupport(), null);
    }
    return shared;
  }

  /**
   * The hub of this test JVM that decides with the real OPA ({@link #opa()}, a child process
   * started with it), republishing its policies every {@value #SHARED_OPA_REPUBLISH_INTERVAL};
   * otherwise as {@link #shared()}. A test may stop and start that OPA; it runs again for the next.
   */
  public static synchronized HubTestSupport sharedWithOpa() {
    if (sharedWithOpa == null) {
      OpaTestServer opa = OpaTestServer.startNew();
      sharedWithOpa =
          startShared(
              new HubTestSupport()
                  .property("opa.url", opa.url())
                  .property("opa.token", opa.token())
                  .property("opa.republish-interval", SHARED_OPA_REPUBLISH_INTERVAL),
              opa);
    } else {
      // A test that stopped it and failed before starting it again must not fail the next ones.
      sharedWithOpa.opa.start();
    }
    return sharedWithOpa;
  }

  private static HubTestSupport startShared(HubTestSupport hub, OpaTestServer opa) {
    hub.opa = opa;
    try {
      hub.start();
    } catch (RuntimeException e) {
      hub.shutdown();
      throw e;
    }
    hub.isShared = true;
    Runtime.getRuntime().addShutdownHook(new Thread(hub::shutdown, "shared-hub-shutdown"));
    return hub;
  }

  /** The OPA this hub decides with, when it is {@link #sharedWithOpa()}; else null. */
  public OpaTestServer opa() {
    return opa;
  }

  private void refuseIfShared(String what) {
    if (isShared) {
      throw new IllegalStateException(
          what
              + " on the shared hub would change it for every other test of this JVM;"
              + " start a hub of its own with new HubTestSupport()");
    }
  }

  /**
   * Registers {@code bean} in the hub's context before it starts, so that it replaces a default the
   * hub would make only when missing (e.g. the {@link java.time.Clock}).
   */
  public HubTestSupport singleton(String name, Object bean) {
    refuseIfShared("singleton()");
    singletons.put(name, bean);
    return this;
  }

  /** The hosted repositories of every hub in this JVM, next to the shared database. */
  static synchronized Path sharedRepos() {
    if (repos == null) {
      try {
        repos = Files.createTempDirectory("gitopshq-test-repos");
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return repos;
  }

  /** Sets a hub property for the next {@link #start()}. */
  public HubTestSupport property(String key, Object value) {
    refuseIfShared("property()");
    extraProperties.put(key, value);
    return this;
  }

  public synchronized HubTestSupport start() {
    refuseIfShared("start()");
    Map<String, Object> p = new HashMap<>();
    p.put("spring.datasource.url", DB_URL);
    p.put("spring.datasource.username", DB_USER);
    p.put("spring.datasource.password", DB_PASSWORD);
    p.put("server.port", httpPort == 0 ? 0 : httpPort);
    if (devServer != null) {
      p.put("temporal.address", devServer.address());
      p.put("temporal.namespace", "default");
    } else {
      p.put("temporal.namespace", temporal.getNamespace());
    }
    p.put("gitopshq.data-dir", dataDir.toString());
    // The database is shared by every hub of this JVM, so the repositories it names are too.
    p.put("gitopshq.git.root", sharedRepos().toString());
    // GITOPSHQ_TEST_GIT_STORAGE=postgres runs every test hub on the PostgreSQL storage.
    p.put(
        "gitopshq.git.storage", System.getenv().getOrDefault("GITOPSHQ_TEST_GIT_STORAGE", "file"));
    p.put("gitopshq.encryption-key", ENCRYPTION_KEY);
    p.put("gitopshq.bootstrap.token", OWNER_TOKEN);
    p.put("gitopshq.agent.grpc-port", grpcPort);
    p.put("gitopshq.agent.public-address", "127.0.0.1:" + grpcPort);
    p.put("gitopshq.agent.heartbeat-flush-millis", 200);
    // No OPA unless a test starts one: never publish into a developer's running OPA on 8181.
    p.put("opa.url", "http://127.0.0.1:1");
    p.putAll(extraProperties);
    WorkflowServiceStubs stubs = temporal == null ? null : temporal.getWorkflowServiceStubs();
    // As command-line arguments: they outrank application.yml (default properties would not).
    String[] args =
        p.entrySet().stream()
            .map(e -> "--" + e.getKey() + "=" + e.getValue())
            .toArray(String[]::new);
    hub =
        new SpringApplicationBuilder(HubApplication.class)
            .initializers(
                ctx -> {
                  if (stubs != null) {
                    ctx.getBeanFactory().registerSingleton("workflowServiceStubs", stubs);
                  }
                  singletons.forEach(ctx.getBeanFactory()::registerSingleton);
                })
            .run(args);
    Environment env = hub.getEnvironment();
    httpPort = Integer.parseInt(env.getProperty("local.server.port"));
    return this;
  }

  /** Stops the hub like a crash would leave it: PostgreSQL and Temporal keep their state. */
  public synchronized void stop() {
    refuseIfShared("stop()");
    if (hub != null) {
      hub.close();
      hub = null;
    }
  }

  public ConfigurableApplicationContext context() {
    return hub;
  }

  public <T> T bean(Class<T> type) {
    return hub.getBean(type);
  }

  public TestWorkflowEnvironment temporal() {
    return temporal;
  }

  /** The Temporal dev server's address ({@code new HubTestSupport(true)}); else null. */
  public String temporalAddress() {
    return devServer == null ? null : devServer.address();
  }

  public int httpPort() {
    return httpPort;
  }

  public int grpcPort() {
    return grpcPort;
  }

  public String grpcAddress() {
    return "127.0.0.1:" + grpcPort;
  }

  public AgentGateway gateway() {
    return bean(AgentGateway.class);
  }

  public Path dataDir() {
    return dataDir;
  }

  /** Stops the hub and what it alone runs on; nothing for the shared hubs (JVM exit stops them). */
  @Override
  public void close() {
    if (!isShared) {
      shutdown();
    }
  }

  private synchronized void shutdown() {
    if (hub != null) {
      hub.close();
      hub = null;
    }
    if (temporal != null && !sharesTemporal) {
      temporal.close();
    }
    if (devServer != null) {
      devServer.close();
    }
    if (opa != null) {
      opa.close();
    }
  }

  // ---- REST ------------------------------------------------------------------------------

  /** A response: status, parsed JSON body (null when empty or plain text) and headers. */
  public record Response(
      int status, JsonNode body, String raw, java.util.Map<String, List<String>> headers) {
    public Response(int status, JsonNode body, String raw) {
      this(status, body, raw, Map.of());
    }

    /** The first value of a header, if it was sent. */
    public java.util.Optional<String> header(String name) {
      return headers.entrySet().stream()
          .filter(e -> e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty())
          .map(e -> e.getValue().get(0))
          .findFirst();
    }
  }

  public Response get(String path, String token) {
    return send("GET", path, token, null);
  }

  public Response post(String path, String token, Object body) {
    return send("POST", path, token, body);
  }

  public Response patch(String path, String token, Object body) {
    return send("PATCH", path, token, body);
  }

  public Response send(String method, String path, String token, Object body) {
    return send(method, path, token, body, Map.of());
  }

  public Response send(
      String method, String path, String token, Object body, Map<String, String> headers) {
    return send(http, "http://127.0.0.1:" + httpPort, method, path, token, body, headers);
  }

  /**
   * One REST call to the hub at {@code baseUrl} (shared with the tests that run hubs as separate
   * processes): the body as JSON, the bearer token when given.
   */
  public static Response send(
      HttpClient http,
      String baseUrl,
      String method,
      String path,
      String token,
      Object body,
      Map<String, String> headers) {
    try {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path));
      if (token != null) {
        b.header("Authorization", "Bearer " + token);
      }
      headers.forEach(b::header);
      String payload =
          body == null ? null : body instanceof String s ? s : JSON.writeValueAsString(body);
      b.method(
          method,
          payload == null
              ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofString(payload));
      if (payload != null) {
        b.header("Content-Type", "application/json");
      }
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      String type = r.headers().firstValue("Content-Type").orElse("");
      JsonNode json =
          r.body().isEmpty() || type.startsWith("text/plain") ? null : JSON.readTree(r.body());
      return new Response(r.statusCode(), json, r.body(), r.headers().map());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  // ---- what many tests set up ---------------------------------------------------------------

  /**
   * A new member of the bootstrap owner's organization with {@code role}, under an email no other
   * test uses, and one API token of theirs: the token.
   */
  public String memberToken(String role) {
    String id = newMember(role);
    // Members reach projects and clusters through grants: this one is in a team with member on
    // every project and every cluster, as the upgrade to grants leaves existing members
    // (V56's team 'everyone'), so tests of roles judge the role alone.
    Response in =
        post("/api/v2/teams/" + everyoneTeam() + "/members", OWNER_TOKEN, Map.of("memberId", id));
    expect(in, 200);
    return tokenOf(id);
  }

  /** Puts a member of the bootstrap organization in {@link #everyoneTeam()}. */
  public void grantEverything(String memberId) {
    expect(
        post(
            "/api/v2/teams/" + everyoneTeam() + "/members",
            OWNER_TOKEN,
            Map.of("memberId", memberId)),
        200);
  }

  /** Like {@link #memberToken} but in no team: the member reaches no project and no cluster. */
  public String ungrantedMemberToken(String role) {
    return tokenOf(newMember(role));
  }

  /** The id of a new member of the bootstrap owner's organization with {@code role}. */
  public String newMember(String role) {
    String email = role + "-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
    Response m =
        post("/api/v2/members", OWNER_TOKEN, Map.of("email", email, "name", role, "role", role));
    expect(m, 201);
    return m.body().get("id").asText();
  }

  /** A new API token of a member of the bootstrap owner's organization. */
  public String tokenOf(String memberId) {
    Response t = post("/api/v2/members/" + memberId + "/tokens", OWNER_TOKEN, Map.of("name", "t"));
    expect(t, 201);
    return t.body().get("token").asText();
  }

  /**
   * The bootstrap organization's team {@code test-everyone}, made at first use with member on every
   * project and on every cluster.
   */
  public synchronized String everyoneTeam() {
    for (JsonNode t : get("/api/v2/teams", OWNER_TOKEN).body().get("items")) {
      if (t.get("name").asText().equals("test-everyone")) {
        return t.get("id").asText();
      }
    }
    Response team = post("/api/v2/teams", OWNER_TOKEN, Map.of("name", "test-everyone"));
    expect(team, 201);
    String id = team.body().get("id").asText();
    expect(
        post(
            "/api/v2/grants",
            OWNER_TOKEN,
            Map.of("teamId", id, "role", "member", "scope", "projects")),
        201);
    expect(
        post(
            "/api/v2/grants",
            OWNER_TOKEN,
            Map.of("teamId", id, "role", "member", "scope", "clusters", "selector", Map.of())),
        201);
    return id;
  }

  /**
   * A new organization {@code slug} with an owner of its own (made by the bootstrap owner): the
   * answer, {@code org} and {@code ownerToken}.
   */
  public JsonNode createOrg(String slug) {
    Response r =
        post(
            "/api/v2/orgs",
            OWNER_TOKEN,
            Map.of(
                "slug",
                slug,
                "name",
                "Org " + slug,
                "owner",
                Map.of("email", "owner@" + slug + ".example.com", "name", "Owner")));
    expect(r, 201);
    return r.body();
  }

  private static void expect(Response r, int status) {
    if (r.status() != status) {
      throw new AssertionError("expected " + status + " but got " + r.status() + ": " + r.raw());
    }
  }

  /** The id of the organization the hub bootstraps (slug {@code default}), the owner token's. */
  public static UUID defaultOrgId() {
    try (Connection c = db();
        var ps = c.prepareStatement("select id from organizations where slug = 'default'");
        var rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new IllegalStateException("no default organization: start a hub first");
      }
      return rs.getObject(1, UUID.class);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- database ----------------------------------------------------------------------------

  public static Connection db() throws SQLException {
    return DriverManager.getConnection(DB_URL, DB_USER, DB_PASSWORD);
  }

  public static long count(String sql, Object... args) {
    try (Connection c = db();
        var ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public static void exec(String sql, Object... args) {
    try (Connection c = db();
        var ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      ps.execute();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Empties the test database, once per test JVM, before the first hub of the JVM starts. */
  public static synchronized void wipeDatabaseOnce() {
    if (wiped) {
      return;
    }
    try (Connection c = db();
        Statement s = c.createStatement()) {
      s.execute("drop schema if exists public cascade");
      s.execute("create schema public");
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot reach the test database "
              + DB_URL
              + " (start it with tools/dev/postgres.sh): "
              + e.getMessage(),
          e);
    }
    wiped = true;
  }

  /**
   * The value of the first sample of {@code name} in a Prometheus scrape whose labels contain every
   * {@code label}; -1 when there is none.
   */
  public static double metric(String scrape, String name, String... labels) {
    for (String line : scrape.split("\n")) {
      if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
        continue;
      }
      boolean all = true;
      for (String l : labels) {
        all &= line.contains(l);
      }
      if (all) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return -1;
  }

  /** A port nothing listens on and that no other test in this JVM was given. */
  public static int freePort() throws IOException {
    return FreePorts.next();
  }
}

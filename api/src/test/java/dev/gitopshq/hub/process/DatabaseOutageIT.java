package dev.gitopshq.hub.process;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * F2: PostgreSQL goes away in the middle of a command, a token rotation and a delivery generation,
 * as in a restart or a failover. The hub process reaches PostgreSQL through a TCP proxy that drops
 * every connection and refuses new ones for the outage (the shared PostgreSQL of the machine keeps
 * running for everyone else). During the outage clients get 503 with Retry-After and the usual
 * error body, never a 500; what is requested then leaves no row; what was running completes
 * afterwards, once, with nothing half-written: the command runs once, the agent ends on its new
 * token with the old one revoked, the generation is recorded and committed once.
 */
@ExtendWith(HubProcess.LogsOnFailure.class)
@Tag("e2e")
class DatabaseOutageIT {
  static ProcessStack stack;
  static TcpProxy postgres;
  static HubProcess hub;
  static Agent agent;
  static String clusterId;

  @BeforeAll
  static void start() throws Exception {
    stack = ProcessStack.start();
    URI db = URI.create(HubTestSupport.DB_URL.substring("jdbc:".length()));
    postgres = stack.add(new TcpProxy(db.getPort()));
    hub =
        stack
            .add(
                new HubProcess(
                    "hub",
                    stack.backends,
                    Map.of(
                        "GITOPSHQ_DB_URL",
                        "jdbc:postgresql://" + postgres.address() + db.getPath(),
                        "GITOPSHQ_DB_CONNECTION_TIMEOUT_MS",
                        "2000",
                        // The rotation test's old token lives 2 s after the new one is active; an
                        // agent answer that never arrives fails the rotation after 30 s.
                        "GITOPSHQ_TOKEN_ROTATION_GRACE",
                        "2s",
                        "GITOPSHQ_TOKEN_ROTATION_ACK_TIMEOUT",
                        "30s")))
            .start();
    Fixtures.AutoScaled cluster =
        Fixtures.autoScaledCluster(stack, hub, hub.grpcAddress(), "db-outage");
    clusterId = cluster.id();
    agent = cluster.agent();
  }

  /** The generation case's project: it lives in the shared test database's organization. */
  static String outageProject;

  @AfterAll
  static void stop() {
    try {
      if (outageProject != null) {
        // Its repository lives in this hub's data directory, which goes with it: a project row
        // left behind would have no repository for the next hub on the same database, and every
        // organization-level change there would fail on it.
        restoreDatabase();
        assertThat(
                hub.send("DELETE", "/api/v2/projects/" + outageProject, OWNER_TOKEN, null).status())
            .isEqualTo(204);
        hub.send("DELETE", "/api/v2/environments/outage-prod", OWNER_TOKEN, null);
        hub.send("DELETE", "/api/v2/tenants/outage-acme", OWNER_TOKEN, null);
      }
    } finally {
      if (stack != null) {
        stack.close();
      }
    }
  }

  /** Cuts the hub off PostgreSQL: open connections dropped, new ones refused. */
  static void cutDatabase() {
    postgres.refuse(true);
    postgres.dropAll();
  }

  static void restoreDatabase() {
    postgres.refuse(false);
  }

  static void assertUnavailable(Response r) {
    assertThat(r.status()).as(r.raw()).isEqualTo(503);
    assertThat(r.header("Retry-After")).hasValue("5");
    assertThat(r.body().get("error").asText()).isEqualTo("unavailable");
    assertThat(r.body().get("status").asInt()).isEqualTo(503);
  }

  @Test
  void aDatabaseOutageMidCommandAnswers503AndTheCommandCompletesAfterwards() {
    String unusedToken = Fixtures.member(hub, "member")[0];
    int before = stack.replicas();
    stack.writes.close();
    String id = Fixtures.scale(hub, OWNER_TOKEN, clusterId, before + 1);
    // Handed over: the agent is writing to the Deployment.
    await().atMost(Duration.ofSeconds(20)).until(() -> stack.writes.waiting() == 1);
    long commandsBefore = HubTestSupport.count("select count(*) from commands");

    postgres.refuse(true);
    postgres.dropAll();
    // A read with a cached token, a token never seen (looked up while authenticating) and a write.
    assertUnavailable(hub.get("/api/v2/commands/" + id, OWNER_TOKEN));
    assertUnavailable(hub.get("/api/v2/clusters", unusedToken));
    Response refused =
        hub.post(
            "/api/v2/clusters/" + clusterId + "/commands",
            OWNER_TOKEN,
            Fixtures.scaleBody(before + 5));
    assertUnavailable(refused);
    // The agent's result reaches the hub while the database is still away.
    stack.writes.open();
    await().atMost(Duration.ofSeconds(10)).until(() -> agent.commandsExecuted() == 1);
    HubProcess.pause(2000);
    postgres.refuse(false);

    Fixtures.assertFirstScaleCompletedOnce(stack, hub, agent, id, before, Duration.ofSeconds(30));
    // The command refused during the outage left nothing behind.
    assertThat(HubTestSupport.count("select count(*) from commands")).isEqualTo(commandsBefore);
    assertThat(hub.get("/api/v2/clusters", unusedToken).status()).isEqualTo(200);
  }

  /** The agent token in an agent's identity file, as the hub stores it (its SHA-256). */
  static String storedTokenHash(Path identityFile) throws Exception {
    return Tokens.sha256Hex(
        new ObjectMapper().readTree(identityFile.toFile()).get("agentToken").asText());
  }

  static long agentTokens(String cluster, String status) {
    return HubTestSupport.count(
        "select count(*) from cluster_tokens where cluster_id = ?::uuid and kind = 'agent'"
            + " and status = ?",
        cluster,
        status);
  }

  /**
   * The rotation's new token reaches the agent and the agent saves it, but its answer reaches the
   * hub while PostgreSQL is away: the hub cannot check it and ends the stream. Once the database is
   * back the agent reconnects with the new token, which answers the rotation: the new token becomes
   * active, the old one is revoked after the grace period, and the agent stays connected. (Before
   * the fix, the lost answer failed the rotation after its timeout and revoked the only token the
   * agent had left.)
   */
  @Test
  void aDatabaseOutageMidRotationAnswers503AndTheAgentEndsOnItsNewToken() throws Exception {
    String[] cluster = Fixtures.createCluster(hub, "rotating");
    String rotating = cluster[0];
    TcpProxy network = stack.add(new TcpProxy(hub.grpcPort()));
    Path identity = Files.createTempDirectory("agent").resolve("identity.json");
    Agent rotatingAgent =
        stack.add(
            Fixtures.startAgent(
                network.address(), "rotating", cluster[1], stack.agentKube, identity));
    String oldHash = storedTokenHash(identity);
    assertThat(agentTokens(rotating, "active")).isEqualTo(1);

    // The agent's bytes wait in the network: its answer will arrive when the database is gone.
    network.hold();
    Response started =
        hub.post("/api/v2/clusters/" + rotating + "/rotate-token", OWNER_TOKEN, null);
    assertThat(started.status()).as(started.raw()).isEqualTo(202);
    String rotationId = started.body().get("rotationId").asText();
    await().atMost(Duration.ofSeconds(20)).until(() -> !storedTokenHash(identity).equals(oldHash));
    String newHash = storedTokenHash(identity);
    assertThat(
            HubTestSupport.count(
                "select count(*) from cluster_tokens where token_hash = ? and status = 'pending'"
                    + " and rotation_id = ?::uuid",
                newHash,
                rotationId))
        .isEqualTo(1);
    long lostAnswers = hub.logLines("database unavailable while handling a message from cluster");

    cutDatabase();
    network.forward();
    // What the agent held back (its heartbeats, then its answer) reached the hub, which could not
    // store or check it and ended the stream: the answer is lost.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                hub.logLines("database unavailable while handling a message from cluster")
                    > lostAnswers);
    assertUnavailable(hub.get("/api/v2/clusters/" + rotating, OWNER_TOKEN));
    assertUnavailable(
        hub.post("/api/v2/clusters/" + rotating + "/rotate-token", OWNER_TOKEN, null));
    assertUnavailable(hub.get("/api/v2/audit?target=" + rotating, OWNER_TOKEN));
    HubProcess.pause(2000);
    restoreDatabase();

    // The old token is revoked 2 s after the new one is active; nothing is left pending.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                HubTestSupport.count(
                        "select count(*) from cluster_tokens where token_hash = ?"
                            + " and status = 'revoked'",
                        oldHash)
                    == 1);
    assertThat(
            HubTestSupport.count(
                "select count(*) from cluster_tokens where token_hash = ? and status = 'active'",
                newHash))
        .isEqualTo(1);
    assertThat(agentTokens(rotating, "active")).isEqualTo(1);
    assertThat(agentTokens(rotating, "pending")).isZero();
    assertThat(agentTokens(rotating, "revoked")).isEqualTo(1);
    assertThat(storedTokenHash(identity)).isEqualTo(newHash);
    assertThat(Fixtures.audited(hub, "cluster.token_rotation.issued", rotating)).isEqualTo(1);
    assertThat(Fixtures.audited(hub, "cluster.token_rotation.activated", rotating)).isEqualTo(1);
    assertThat(Fixtures.audited(hub, "cluster.token_rotation.completed", rotating)).isEqualTo(1);
    assertThat(Fixtures.audited(hub, "cluster.token_rotation.failed", rotating)).isZero();
    // The agent runs on the new token: connected, its heartbeats answered.
    long beats = rotatingAgent.heartbeatsSent();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> rotatingAgent.isConnected() && rotatingAgent.heartbeatsSent() > beats + 1);
    assertThat(hub.get("/api/v2/clusters/" + rotating, OWNER_TOKEN).body().get("status").asText())
        .isEqualTo("Connected");
  }

  /**
   * A configuration change starts a delivery generation and PostgreSQL goes away before it
   * finished: its activities retry with backoff, REST answers 503, a change requested meanwhile
   * leaves no revision and no commit, and once the database is back the generation is recorded
   * committed once, with one delivery commit on main.
   */
  @Test
  void aDatabaseOutageMidGenerationAnswers503AndTheGenerationCommitsOnce() {
    String project = generatingProject();
    String bundle = "outage-config";
    int deliveriesBefore = commits(project, true);
    int configCommitsBefore = commits(project, false);
    long generationsBefore =
        HubTestSupport.count(
            "select count(*) from generations where project_id = ?::uuid", project);

    long revision = 0;
    Instant cutAt = null;
    // The change is made with the database up; the cut follows its answer at once. If the
    // generation won the race and finished first, the attempt does not count and a new change
    // tries again.
    for (int attempt = 1; attempt <= 3 && cutAt == null; attempt++) {
      Response changed =
          hub.send(
              "PUT",
              "/api/v2/manifest-bundles/" + bundle,
              OWNER_TOKEN,
              Map.of("files", Map.of("cm.yaml", configMap("level-" + attempt))));
      cutDatabase();
      assertThat(changed.status()).as(changed.raw()).isEqualTo(200);
      revision = configRevision(project);
      if (finishedGenerations(project, revision) == 0) {
        cutAt = Instant.now();
      } else {
        restoreDatabase();
        awaitGeneration(project, revision);
        deliveriesBefore = commits(project, true);
        configCommitsBefore = commits(project, false);
        generationsBefore =
            HubTestSupport.count(
                "select count(*) from generations where project_id = ?::uuid", project);
      }
    }
    assertThat(cutAt).as("a generation still running when the database went away").isNotNull();

    assertUnavailable(hub.get("/api/v2/projects/" + project + "/generations", OWNER_TOKEN));
    assertUnavailable(hub.post("/api/v2/projects/" + project + "/generations", OWNER_TOKEN, null));
    assertUnavailable(
        hub.send(
            "PUT",
            "/api/v2/manifest-bundles/" + bundle,
            OWNER_TOKEN,
            Map.of("files", Map.of("cm.yaml", configMap("refused")))));
    // Short enough for the render's five attempts (about 15 s), long enough to fail a few.
    HubProcess.pause(5000);
    assertThat(finishedGenerations(project, revision)).isZero();
    restoreDatabase();

    JsonNode g = awaitGeneration(project, revision);
    assertThat(g.get("status").asText()).as(g.toString()).isEqualTo("committed");
    assertThat(Instant.parse(g.get("finishedAt").asText())).isAfter(cutAt);
    JsonNode head =
        hub.get("/api/v2/projects/" + project + "/commits?limit=1", OWNER_TOKEN)
            .body()
            .get("items")
            .get(0);
    assertThat(head.get("id").asText()).isEqualTo(g.get("commit").asText());
    // One delivery commit and the one configuration commit; the refused change left none.
    assertThat(commits(project, true)).isEqualTo(deliveriesBefore + 1);
    assertThat(commits(project, false)).isEqualTo(configCommitsBefore + 1);
    assertThat(configRevision(project)).isEqualTo(revision);
    // Nothing half-recorded: one generation more, and every generation of the project finished.
    assertThat(
            HubTestSupport.count(
                "select count(*) from generations where project_id = ?::uuid", project))
        .isEqualTo(generationsBefore + 1);
    assertThat(
            HubTestSupport.count(
                "select count(*) from generations where project_id = ?::uuid"
                    + " and status not in ('committed', 'unchanged')",
                project))
        .isZero();
    // Its units (kept for the next generation to reuse) are all rendered; older ones are pruned.
    String units =
        "select count(*) from generation_units u join generations g on g.id = u.generation_id"
            + " where g.project_id = ?::uuid and g.revision = ?";
    assertThat(HubTestSupport.count(units, project, revision)).isEqualTo(g.get("units").asLong());
    assertThat(HubTestSupport.count(units + " and u.tree_id is null", project, revision)).isZero();
    assertThat(
            HubTestSupport.count(
                "select count(*) from generation_units u join generations g on g.id ="
                    + " u.generation_id where g.project_id = ?::uuid and g.revision < ?",
                project,
                revision))
        .isZero();
    assertThat(Fixtures.audited(hub, "delivery.failed", project)).isZero();
    assertThat(
            hub.get("/api/v2/projects/" + project, OWNER_TOKEN)
                .body()
                .get("generatedRevision")
                .asLong())
        .isEqualTo(revision);
  }

  static String configMap(String level) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  level: "
        + level
        + "\n";
  }

  /** A project delivering bundle outage-config to one tenant and cluster, delivered once. */
  static String generatingProject() {
    ok(
        hub.post(
            "/api/v2/manifest-bundles",
            OWNER_TOKEN,
            Map.of("name", "outage-config", "files", Map.of("cm.yaml", configMap("initial")))),
        201);
    String project =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "outage-shop")), 201)
            .get("id")
            .asText();
    outageProject = project;
    ok(hub.post("/api/v2/environments", OWNER_TOKEN, Map.of("name", "outage-prod")), 201);
    ok(
        hub.post(
            "/api/v2/tenants", OWNER_TOKEN, Map.of("name", "outage-acme", "displayName", "Acme")),
        201);
    Fixtures.createCluster(hub, "outage-eu");
    ok(
        hub.send(
            "PUT",
            "/api/v2/projects/" + project + "/environments/outage-prod",
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", "outage-eu")))),
        200);
    ok(
        hub.send("PUT", "/api/v2/projects/" + project + "/tenants/outage-acme", OWNER_TOKEN, null),
        200);
    ok(
        hub.post(
            "/api/v2/projects/" + project + "/bindings",
            OWNER_TOKEN,
            Map.of(
                "name",
                "app",
                "kind",
                "manifests",
                "source",
                "outage-config",
                "targets",
                List.of(Map.of("tenant", "outage-acme", "environment", "outage-prod")))),
        201);
    JsonNode first = awaitGeneration(project, configRevision(project));
    assertThat(first.get("status").asText()).as(first.toString()).isEqualTo("committed");
    return project;
  }

  static JsonNode ok(Response r, int status) {
    assertThat(r.status()).as(r.raw()).isEqualTo(status);
    return r.body();
  }

  static long configRevision(String project) {
    return HubTestSupport.count("select config_revision from projects where id = ?::uuid", project);
  }

  static long finishedGenerations(String project, long revision) {
    return HubTestSupport.count(
        "select count(*) from generations where project_id = ?::uuid and revision = ?"
            + " and status in ('committed', 'unchanged', 'superseded', 'failed')",
        project,
        revision);
  }

  static JsonNode awaitGeneration(String project, long revision) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> finishedGenerations(project, revision) == 1);
    Response r = hub.get("/api/v2/projects/" + project + "/generations/" + revision, OWNER_TOKEN);
    return ok(r, 200);
  }

  /**
   * main's delivery commits ({@code delivery}: change {@code delivery.generated}) or the others.
   */
  static int commits(String project, boolean delivery) {
    int n = 0;
    for (JsonNode c :
        hub.get("/api/v2/projects/" + project + "/commits?limit=500", OWNER_TOKEN)
            .body()
            .get("items")) {
      if (c.get("change").asText().equals("delivery.generated") == delivery) {
        n++;
      }
    }
    return n;
  }
}

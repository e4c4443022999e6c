package dev.gitopshq.hub.delivery;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static dev.gitopshq.hub.delivery.DeliveryFixtures.uniq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ClusterIdentity;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Environments that bind clusters by label selector, against the real hub: which clusters a
 * selector binds, how relabelling, registration and deletion make clusters join and leave (each a
 * configuration commit and an audit entry naming the cause), that generation delivers to a cluster
 * that joined, and that another organization's clusters never match.
 */
class ClusterSelectorIT {
  static HubTestSupport hub;
  static DeliveryFixtures f;
  static ManagedChannel channel;

  /** Unique per test: the shared hub's organization holds other tests' clusters too. */
  String suite;

  String project;
  String env;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
    f = new DeliveryFixtures(hub);
    channel = NettyChannelBuilder.forTarget(hub.grpcAddress()).usePlaintext().build();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @BeforeEach
  void project() {
    suite = uniq("s");
    project = f.project(uniq("shop"));
    env = f.environment(uniq("prod"));
  }

  record Cluster(String id, String name, String registrationToken) {}

  /** A cluster of the default organization with the suite's label and {@code tier}. */
  Cluster cluster(String tier, String token) {
    String name = uniq("c");
    Map<String, Object> labels = new LinkedHashMap<>();
    labels.put("suite", suite);
    labels.put("tier", tier);
    JsonNode body =
        f.ok(hub.post("/api/v2/clusters", token, Map.of("name", name, "labels", labels)), 201);
    return new Cluster(
        body.get("cluster").get("id").asText(), name, body.get("registrationToken").asText());
  }

  /** The agent registers over gRPC, as the real agent does. */
  static void register(Cluster c) {
    Metadata md = new Metadata();
    md.put(
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + c.registrationToken());
    AgentHubGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .register(
            RegisterRequest.newBuilder()
                .setClusterName(c.name())
                .setAgentVersion("0.1.0")
                .addCapabilities("observe")
                .build());
  }

  /** Registers as an agent whose chart sets {@code cluster.labels}; returns its agent token. */
  static String registerReporting(Cluster c, Map<String, String> labels) {
    Metadata md = new Metadata();
    md.put(
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + c.registrationToken());
    return AgentHubGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .register(
            RegisterRequest.newBuilder()
                .setClusterName(c.name())
                .setAgentVersion("0.1.0")
                .addCapabilities("observe")
                .setIdentity(ClusterIdentity.newBuilder().putAllLabels(labels))
                .build())
        .getAgentToken();
  }

  /**
   * Connects as the agent, says Hello with these labels in its identity (an upgraded chart), waits
   * for the hub's welcome and disconnects.
   */
  static void helloReporting(String agentToken, Map<String, String> labels) throws Exception {
    Metadata md = new Metadata();
    md.put(
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + agentToken);
    CompletableFuture<HubMessage> first = new CompletableFuture<>();
    StreamObserver<AgentMessage> out =
        AgentHubGrpc.newStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
            .connect(
                new StreamObserver<HubMessage>() {
                  @Override
                  public void onNext(HubMessage value) {
                    first.complete(value);
                  }

                  @Override
                  public void onError(Throwable t) {
                    first.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    out.onNext(
        AgentMessage.newBuilder()
            .setHello(
                Hello.newBuilder()
                    .setAgentVersion("0.1.0")
                    .addCapabilities("observe")
                    .setIdentity(ClusterIdentity.newBuilder().putAllLabels(labels)))
            .build());
    assertThat(first.get(10, TimeUnit.SECONDS).hasWelcome()).isTrue();
    out.onCompleted();
  }

  JsonNode clusterView(Cluster c) {
    return f.ok(hub.get("/api/v2/clusters/" + c.id(), OWNER_TOKEN), 200);
  }

  Cluster registered(String tier) {
    Cluster c = cluster(tier, OWNER_TOKEN);
    register(c);
    return c;
  }

  Map<String, Object> tierSelector(String tier) {
    return Map.of("matchLabels", Map.of("suite", suite, "tier", tier));
  }

  Response putEnv(Map<String, Object> body) {
    return f.put("/api/v2/projects/" + project + "/environments/" + env, OWNER_TOKEN, body);
  }

  /** The environment's clusters as the API lists them: name to boundBy. */
  Map<String, List<String>> bound() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (JsonNode e :
        hub.get("/api/v2/projects/" + project + "/environments", OWNER_TOKEN).body().get("items")) {
      if (e.get("name").asText().equals(env)) {
        for (JsonNode c : e.get("clusters")) {
          List<String> why = new ArrayList<>();
          c.get("boundBy").forEach(b -> why.add(b.asText()));
          out.put(c.get("cluster").asText(), why);
        }
      }
    }
    return out;
  }

  String lastCommitMessage() {
    return f.log(project).get(0).message();
  }

  /** The descriptions of the project's project.config_changed audit entries, newest first. */
  List<String> configAudit() {
    List<String> out = new ArrayList<>();
    for (JsonNode e :
        hub.get(
                "/api/v2/audit?action=project.config_changed&target=" + project + "&limit=50",
                OWNER_TOKEN)
            .body()
            .get("items")) {
      out.add(e.get("details").get("description").asText());
    }
    return out;
  }

  static List<String> names(JsonNode preview) {
    List<String> out = new ArrayList<>();
    preview.get("clusters").forEach(c -> out.add(c.get("name").asText()));
    return out;
  }

  static List<String> fields(Response r) {
    return r.body().get("errors").findValuesAsText("field");
  }

  @Test
  void aSelectorBindsTheRegisteredClustersItMatchesBesideTheNamedOnes() {
    Cluster prod = registered("production");
    Cluster staging = registered("staging");
    Cluster notYet = cluster("production", OWNER_TOKEN);

    JsonNode preview =
        f.ok(
            hub.post("/api/v2/clusters/selector-preview", OWNER_TOKEN, tierSelector("production")),
            200);
    assertThat(names(preview)).containsExactlyInAnyOrder(prod.name(), notYet.name());
    for (JsonNode c : preview.get("clusters")) {
      assertThat(c.get("registered").asBoolean())
          .isEqualTo(c.get("name").asText().equals(prod.name()));
    }
    assertThat(preview.get("selector").asText()).isEqualTo("suite=" + suite + ",tier=production");

    JsonNode saved =
        f.ok(
            putEnv(
                Map.of(
                    "clusters",
                    List.of(Map.of("cluster", staging.name())),
                    "clusterSelector",
                    tierSelector("production"))),
            200);
    assertThat(saved.get("changed").asBoolean()).isTrue();
    assertThat(bound())
        .as("the selector binds registered matches only; the named cluster stays")
        .containsOnly(
            Map.entry(prod.name(), List.of("selector")),
            Map.entry(staging.name(), List.of("name")));
    assertThat(lastCommitMessage())
        .contains("on " + staging.name() + " and clusters matching suite=" + suite);
    String file = f.configFile(project, "environments/" + env + ".yaml");
    assertThat(file).contains("clusterSelector:").contains("tier: production");
    assertThat(file).contains("- selector\n  name: " + prod.name());

    // A selector matching the named cluster too binds it by both.
    f.ok(
        putEnv(
            Map.of(
                "clusters",
                List.of(Map.of("cluster", staging.name())),
                "clusterSelector",
                Map.of("matchLabels", Map.of("suite", suite)))),
        200);
    assertThat(bound())
        .containsOnly(
            Map.entry(prod.name(), List.of("selector")),
            Map.entry(staging.name(), List.of("name", "selector")));
  }

  @Test
  void eachOperatorSelectsAsKubernetesDoes() {
    Cluster prod = registered("production");
    Cluster staging = registered("staging");
    Map<String, Object> suiteIs =
        Map.of("key", "suite", "operator", "In", "values", List.of(suite));
    record Case(Map<String, Object> expression, List<String> expected) {}
    for (Case c :
        List.of(
            new Case(
                Map.of("key", "tier", "operator", "In", "values", List.of("staging", "dev")),
                List.of(staging.name())),
            new Case(
                Map.of("key", "tier", "operator", "NotIn", "values", List.of("staging")),
                List.of(prod.name())),
            new Case(
                Map.of("key", "tier", "operator", "Exists"), List.of(prod.name(), staging.name())),
            new Case(Map.of("key", "tier", "operator", "DoesNotExist"), List.of()))) {
      JsonNode preview =
          f.ok(
              hub.post(
                  "/api/v2/clusters/selector-preview",
                  OWNER_TOKEN,
                  Map.of("matchExpressions", List.of(suiteIs, c.expression()))),
              200);
      assertThat(names(preview))
          .as(c.expression().toString())
          .containsExactlyInAnyOrderElementsOf(c.expected());
    }
  }

  @Test
  void relabellingAClusterMakesItJoinAndLeaveWithACommitAndAnAuditEntryNamingTheCause() {
    Cluster prod = registered("production");
    Cluster staging = registered("staging");
    f.ok(putEnv(Map.of("clusterSelector", tierSelector("production"))), 200);
    assertThat(bound()).containsOnlyKeys(prod.name());
    long before = DeliveryFixtures.revision(project);

    f.ok(
        hub.patch(
            "/api/v2/clusters/" + staging.id(),
            OWNER_TOKEN,
            Map.of("labels", Map.of("suite", suite, "tier", "production"))),
        200);
    assertThat(bound()).containsOnlyKeys(prod.name(), staging.name());
    assertThat(DeliveryFixtures.revision(project)).isEqualTo(before + 1);
    String joined = "Cluster " + staging.name() + " joins " + env + " (cluster labels changed by ";
    assertThat(lastCommitMessage()).startsWith(joined);
    assertThat(configAudit().get(0)).startsWith(joined);

    f.ok(
        hub.patch(
            "/api/v2/clusters/" + prod.id(),
            OWNER_TOKEN,
            Map.of("labels", Map.of("suite", suite, "tier", "retired"))),
        200);
    assertThat(bound()).containsOnlyKeys(staging.name());
    String left = "Cluster " + prod.name() + " leaves " + env + " (cluster labels changed by ";
    assertThat(lastCommitMessage()).startsWith(left);
    assertThat(configAudit().get(0)).startsWith(left);

    // A change that moves no cluster commits nothing.
    f.ok(
        hub.patch("/api/v2/clusters/" + prod.id(), OWNER_TOKEN, Map.of("displayName", "Old")), 200);
    assertThat(DeliveryFixtures.revision(project)).isEqualTo(before + 2);
  }

  @Test
  void aMatchingClusterJoinsWhenItsAgentRegisters() {
    f.ok(putEnv(Map.of("clusterSelector", tierSelector("production"))), 200);
    Cluster c = cluster("production", OWNER_TOKEN);
    assertThat(bound()).as("not registered yet").isEmpty();

    register(c);
    await().atMost(Duration.ofSeconds(60)).until(() -> bound().containsKey(c.name()));
    String joined =
        "Cluster " + c.name() + " joins " + env + " (cluster " + c.name() + " registered)";
    assertThat(lastCommitMessage()).startsWith(joined);
    assertThat(configAudit().get(0)).isEqualTo(joined);
  }

  @Test
  void labelsTheAgentReportsSelectItAndAHelloThatChangesThemMovesItWithACommitAndAnAuditEntry()
      throws Exception {
    f.ok(putEnv(Map.of("clusterSelector", tierSelector("production"))), 200);
    String name = uniq("c");
    JsonNode created =
        f.ok(
            hub.post(
                "/api/v2/clusters",
                OWNER_TOKEN,
                Map.of("name", name, "labels", Map.of("suite", suite))),
            201);
    Cluster c =
        new Cluster(
            created.get("cluster").get("id").asText(),
            name,
            created.get("registrationToken").asText());

    // The chart's cluster.labels arrive with Register: the registration joins the environment.
    String agentToken = registerReporting(c, Map.of("tier", "production"));
    await().atMost(Duration.ofSeconds(60)).until(() -> bound().containsKey(name));
    JsonNode view = clusterView(c);
    assertThat(view.get("labels").size()).isEqualTo(1);
    assertThat(view.get("reportedLabels").get("tier").asText()).isEqualTo("production");
    assertThat(view.get("effectiveLabels").get("suite").asText()).isEqualTo(suite);
    assertThat(view.get("effectiveLabels").get("tier").asText()).isEqualTo("production");

    // A label set in the hub wins over the reported one for the same key.
    f.ok(
        hub.patch(
            "/api/v2/clusters/" + c.id(),
            OWNER_TOKEN,
            Map.of("labels", Map.of("suite", suite, "tier", "staging"))),
        200);
    assertThat(bound()).doesNotContainKey(name);
    f.ok(
        hub.patch(
            "/api/v2/clusters/" + c.id(), OWNER_TOKEN, Map.of("labels", Map.of("suite", suite))),
        200);
    assertThat(bound()).containsKey(name);

    // The chart is upgraded with other labels: the next Hello moves the cluster out.
    long before = DeliveryFixtures.revision(project);
    helloReporting(agentToken, Map.of("tier", "retired"));
    await().atMost(Duration.ofSeconds(30)).until(() -> !bound().containsKey(name));
    String left =
        "Cluster " + name + " leaves " + env + " (labels reported by the agent of cluster " + name;
    assertThat(lastCommitMessage()).startsWith(left);
    assertThat(configAudit().get(0)).startsWith(left);
    assertThat(DeliveryFixtures.revision(project)).isEqualTo(before + 1);
    JsonNode reported =
        hub.get("/api/v2/audit?action=cluster.labels_reported&target=" + c.id(), OWNER_TOKEN)
            .body()
            .get("items")
            .get(0)
            .get("details");
    assertThat(reported.get("reportedLabels").get("from").get("tier").asText())
        .isEqualTo("production");
    assertThat(reported.get("reportedLabels").get("to").get("tier").asText()).isEqualTo("retired");
    assertThat(clusterView(c).get("reportedLabels").get("tier").asText()).isEqualTo("retired");

    // The same labels again change nothing.
    helloReporting(agentToken, Map.of("tier", "retired"));
    Thread.sleep(1000);
    assertThat(DeliveryFixtures.revision(project)).isEqualTo(before + 1);
  }

  @Test
  void aBadLabelReportedByTheAgentIsRefusedNamingIt() {
    Cluster c = cluster("production", OWNER_TOKEN);
    assertThatThrownBy(() -> registerReporting(c, Map.of("bad key!", "x")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).startsWith("identity.labels.bad key!");
            });
  }

  @Test
  void aClusterPendingAcceptanceJoinsNoEnvironmentUntilAnAdminAcceptsIt() {
    String name = uniq("c");
    JsonNode created =
        f.ok(
            hub.post(
                "/api/v2/clusters",
                OWNER_TOKEN,
                Map.of(
                    "name",
                    name,
                    "labels",
                    Map.of("suite", suite, "tier", "production"),
                    "requireAcceptance",
                    true)),
            201);
    Cluster c =
        new Cluster(
            created.get("cluster").get("id").asText(),
            name,
            created.get("registrationToken").asText());
    register(c);
    assertThat(clusterView(c).get("status").asText()).isEqualTo("PendingAcceptance");

    f.ok(putEnv(Map.of("clusterSelector", tierSelector("production"))), 200);
    assertThat(bound()).as("saving the environment").doesNotContainKey(name);
    f.ok(
        hub.patch(
            "/api/v2/clusters/" + c.id(),
            OWNER_TOKEN,
            Map.of("labels", Map.of("suite", suite, "tier", "production", "zone", "a"))),
        200);
    assertThat(bound()).as("relabelling it").doesNotContainKey(name);
    JsonNode preview =
        f.ok(
            hub.post("/api/v2/clusters/selector-preview", OWNER_TOKEN, tierSelector("production")),
            200);
    assertThat(preview.get("clusters").get(0).get("registered").asBoolean()).isFalse();

    f.ok(hub.post("/api/v2/clusters/" + c.id() + "/accept", OWNER_TOKEN, Map.of()), 200);
    await().atMost(Duration.ofSeconds(60)).until(() -> bound().containsKey(name));
  }

  @Test
  void anotherOrganizationsClusterNeverMatches() {
    String other = hub.createOrg(uniq("sel")).get("ownerToken").asText();
    Cluster theirs = cluster("production", other);
    register(theirs);
    Cluster ours = registered("production");

    f.ok(putEnv(Map.of("clusterSelector", tierSelector("production"))), 200);
    assertThat(bound()).containsOnlyKeys(ours.name());
    assertThat(
            names(
                f.ok(
                    hub.post(
                        "/api/v2/clusters/selector-preview",
                        OWNER_TOKEN,
                        tierSelector("production")),
                    200)))
        .containsExactly(ours.name());
    assertThat(
            names(
                f.ok(
                    hub.post(
                        "/api/v2/clusters/selector-preview", other, tierSelector("production")),
                    200)))
        .containsExactly(theirs.name());

    // Their cluster relabelled in their organization changes nothing here.
    long revision = DeliveryFixtures.revision(project);
    f.ok(
        hub.patch(
            "/api/v2/clusters/" + theirs.id(),
            other,
            Map.of("labels", Map.of("suite", suite, "tier", "production", "x", "y"))),
        200);
    assertThat(DeliveryFixtures.revision(project)).isEqualTo(revision);
    assertThat(bound()).containsOnlyKeys(ours.name());
  }

  @Test
  void aClusterBoundOnlyBySelectorLeavesWhenDeleted() {
    Cluster c = registered("production");
    f.ok(putEnv(Map.of("clusterSelector", tierSelector("production"))), 200);
    assertThat(bound()).containsOnlyKeys(c.name());

    assertThat(f.delete("/api/v2/clusters/" + c.id(), OWNER_TOKEN).status()).isEqualTo(204);
    assertThat(bound()).isEmpty();
    assertThat(lastCommitMessage())
        .startsWith(
            "Cluster " + c.name() + " leaves " + env + " (cluster " + c.name() + " deleted by ");
  }

  @Test
  void theNextGenerationDeliversToAClusterThatJoined() {
    String chart = f.chartVersion(uniq("chart"), "1.0.0");
    String tenant = f.tenant(uniq("acme"));
    Cluster first = registered("production");
    Cluster second = registered("staging");
    f.ok(putEnv(Map.of("clusterSelector", tierSelector("production"))), 200);
    f.ok(f.put("/api/v2/projects/" + project + "/tenants/" + tenant, OWNER_TOKEN, Map.of()), 200);
    f.ok(
        hub.post(
            "/api/v2/projects/" + project + "/workloads",
            OWNER_TOKEN,
            Map.of("name", "web", "chart", chart, "version", "1.0.0")),
        201);

    f.ok(
        hub.patch(
            "/api/v2/clusters/" + second.id(),
            OWNER_TOKEN,
            Map.of("labels", Map.of("suite", suite, "tier", "production"))),
        200);
    long revision = DeliveryFixtures.revision(project);
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              Response r =
                  hub.get("/api/v2/projects/" + project + "/generations/" + revision, OWNER_TOKEN);
              return r.status() == 200 && r.body().get("status").asText().equals("committed");
            });
    UUID org = DeliveryFixtures.orgOf(project);
    ProjectRepos repos = f.repos();
    var files =
        repos.readFiles(
            org,
            UUID.fromString(project),
            repos.head(org, UUID.fromString(project), ProjectRepos.MAIN).orElseThrow(),
            "rendered");
    assertThat(files.keySet())
        .as("rendered/ for the cluster that joined and the one bound before")
        .anyMatch(p -> p.startsWith(env + "/" + second.name() + "/" + tenant + "/"))
        .anyMatch(p -> p.startsWith(env + "/" + first.name() + "/" + tenant + "/"));
  }

  @Test
  void aBadSelectorIsRefusedNamingTheField() {
    Response op =
        putEnv(
            Map.of(
                "clusterSelector",
                Map.of(
                    "matchExpressions",
                    List.of(Map.of("key", "tier", "operator", "Gt", "values", List.of("1"))))));
    assertThat(op.status()).as(op.raw()).isEqualTo(400);
    assertThat(fields(op)).containsExactly("clusterSelector.matchExpressions[0].operator");

    Response noValues =
        putEnv(
            Map.of(
                "clusterSelector",
                Map.of("matchExpressions", List.of(Map.of("key", "tier", "operator", "In")))));
    assertThat(fields(noValues)).containsExactly("clusterSelector.matchExpressions[0].values");

    Response key =
        hub.post(
            "/api/v2/clusters/selector-preview",
            OWNER_TOKEN,
            Map.of("matchLabels", Map.of("Bad.Prefix/tier", "x")));
    assertThat(key.status()).isEqualTo(400);
    assertThat(fields(key)).containsExactly("selector.matchLabels.Bad.Prefix/tier");

    Map<String, String> many = new LinkedHashMap<>();
    for (int i = 0; i < 33; i++) {
      many.put("k" + i, "v");
    }
    Response big =
        hub.post("/api/v2/clusters/selector-preview", OWNER_TOKEN, Map.of("matchLabels", many));
    assertThat(big.status()).isEqualTo(400);
    assertThat(fields(big)).containsExactly("selector");
    assertThat(DeliveryFixtures.revision(project)).as("nothing was saved").isEqualTo(1);
  }
}

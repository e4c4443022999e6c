package dev.gitopshq.hub.release;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.activities.render.TarGz;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Releases end to end on a real hub, PostgreSQL, the real OPA and the hosted repositories: a
 * project with staging and production (one cluster each), tenants acme and globex and a workload of
 * the webapp test chart. A release deploys to staging at once (default policy), a promotion to
 * production waits for another admin, a freeze window blocks a promotion until an admin breaks the
 * glass, and a rollback of one tenant in staging restores exactly that tenant's files, checked file
 * by file. Delivery generation is the hub's own (the render workers rendering the chart). The tests
 * build on each other and run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReleaseEndToEndIT {
  static final String STAGING = "staging";
  static final String PRODUCTION = "production";
  static final String STAGING_CLUSTER = "rel-staging-1";
  static final String PRODUCTION_CLUSTER = "rel-production-1";

  static OpaTestServer opa;
  static HubTestSupport hub;
  static ProjectRepos repos;
  static UUID orgId;
  static String projectId;
  static String stagingClusterId;
  static String adminA;
  static String adminB;
  static String member;
  static String viewer;

  /** Release #1's source commit and the deploy/staging files right after release #2. */
  static String release1Source;

  static String release2Source;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.sharedWithOpa();
    opa = hub.opa();
    repos = hub.bean(ProjectRepos.class);
    orgId = HubTestSupport.defaultOrgId();
    awaitReleasePolicies();

    adminA = token("admin");
    adminB = token("admin");
    member = token("member");
    viewer = token("viewer");

    environment(STAGING);
    environment(PRODUCTION);
    tenant("acme");
    tenant("globex");
    stagingClusterId =
        ok(hub.post(
                "/api/v2/clusters",
                OWNER_TOKEN,
                Map.of("name", STAGING_CLUSTER, "environment", STAGING)))
            .get("cluster")
            .get("id")
            .asText();
    ok(
        hub.post(
            "/api/v2/clusters",
            OWNER_TOKEN,
            Map.of("name", PRODUCTION_CLUSTER, "environment", PRODUCTION)));
    uploadChart();

    projectId =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "shop"))).get("id").asText();
    ok(
        hub.send(
            "PUT",
            project("/environments/" + STAGING),
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", STAGING_CLUSTER)))));
    ok(
        hub.send(
            "PUT",
            project("/environments/" + PRODUCTION),
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", PRODUCTION_CLUSTER)))));
    ok(hub.send("PUT", project("/tenants/acme"), OWNER_TOKEN, Map.of()));
    ok(hub.send("PUT", project("/tenants/globex"), OWNER_TOKEN, Map.of()));
    ok(
        hub.post(
            project("/workloads"),
            OWNER_TOKEN,
            Map.of(
                "name",
                "web",
                "chart",
                "webapp",
                "version",
                "1.2.0",
                "values",
                Map.of("image", Map.of("tag", "1.0.0")))));
    Generator.awaitDelivered();
  }

  // ---- the scenario -------------------------------------------------------------------------

  @Test
  @Order(1)
  void aReleaseDeploysToTheFirstEnvironmentWithoutApproval() {
    Response r =
        hub.post(project("/releases"), member, Map.of("description", "first release of shop"));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    JsonNode release = r.body().get("release");
    assertThat(release.get("number").asInt()).isEqualTo(1);
    assertThat(release.get("kind").asText()).isEqualTo("standard");
    assertThat(release.get("changes")).isNotEmpty();
    assertThat(texts(release.get("changes"), "description")).contains("Create project shop");
    JsonNode deployment = r.body().get("deployment");
    assertThat(deployment.get("action").asText()).isEqualTo("deploy");
    assertThat(texts(deployment.get("environments"))).containsExactly(STAGING);
    assertThat(deployment.get("workflowId").asText())
        .isEqualTo("deployment-" + deployment.get("id").asText());

    JsonNode done = awaitStatus(deployment.get("id").asText(), "deployed");
    assertThat(done.get("decision").get("outcome").asText()).isEqualTo("auto_approve");
    assertThat(texts(done.get("timeline"), "status")).containsSubsequence("pending", "deployed");

    release1Source = hub.get(project("/releases/1"), member).body().get("sourceCommit").asText();
    assertThat(deployFiles(STAGING)).isNotEmpty().isEqualTo(rendered(release1Source, STAGING));
    // What the decision read: the branch was empty, so every rendered object (one per file) is
    // added; the webapp chart holds no RBAC or cluster-scoped object.
    JsonNode changes = done.get("changes");
    assertThat(changes.get("added").asLong()).isEqualTo(deployFiles(STAGING).size());
    assertThat(changes.get("changed").asLong()).isZero();
    assertThat(changes.get("removed").asLong()).isZero();
    assertThat(changes.get("sensitive").asLong()).isZero();
    assertThat(changes.get("truncated").asBoolean()).isFalse();
    assertThat(deployFiles(STAGING).keySet())
        .allSatisfy(p -> assertThat(p).startsWith(STAGING_CLUSTER + "/"));
    var commit =
        repos
            .commitInfo(
                orgId, UUID.fromString(projectId), done.get("commits").get(STAGING).asText())
            .orElseThrow();
    assertThat(commit.message())
        .startsWith("Deploy release #1 of shop to staging\n")
        .contains("first release of shop")
        .contains("GitOpsHQ-Change: release.deployed")
        .contains("GitOpsHQ-Scope: project=shop environment=staging");

    JsonNode detail = hub.get(project("/releases/1"), viewer).body();
    assertThat(detail.get("environments").get(0).get("environment").asText()).isEqualTo(STAGING);
    assertThat(detail.get("environments").get(0).get("status").asText()).isEqualTo("deployed");

    JsonNode deliveries = hub.get(project("/deliveries"), viewer).body().get("items");
    assertThat(deliveries).hasSize(4);
    for (JsonNode d : deliveries) {
      if (d.get("environment").asText().equals(STAGING)) {
        assertThat(d.get("deployedRelease").asInt()).isEqualTo(1);
        assertThat(d.get("deployedCommit").asText())
            .isEqualTo(done.get("commits").get(STAGING).asText());
      } else {
        assertThat(d.has("deployedRelease")).isFalse();
      }
    }
    // The deployment asked for a drift check of the cluster staging delivers to (it waits for
    // gitopshq.drift.after-deployment-delay, and for an agent).
    assertThat(
            HubTestSupport.count(
                "select count(*) from drift_checks where cluster_id = ?::uuid"
                    + " and trigger = 'deployment' and requested_by = ?",
                stagingClusterId,
                "deployment " + deployment.get("id").asText()))
        .isEqualTo(1);
    JsonNode bindings =
        hub.get("/api/v2/clusters/" + stagingClusterId + "/bindings", viewer).body().get("items");
    assertThat(texts(bindings, "tenant")).containsExactly("acme", "globex");
    for (JsonNode b : bindings) {
      assertThat(b.get("project").asText()).isEqualTo("shop");
      assertThat(b.get("environment").asText()).isEqualTo(STAGING);
      assertThat(b.get("lastDelivery").get("release").asInt()).isEqualTo(1);
      // The staging cluster has no agent that reads Argo CD: the state is Unknown, and says why.
      assertThat(b.get("syncStatus").asText()).isEqualTo("Unknown");
      assertThat(b.get("syncReason").asText()).isNotBlank();
    }
  }

  @Test
  @Order(2)
  void nothingToReleaseWithoutAConfigurationChange() {
    Response r = hub.post(project("/releases"), member, Map.of());
    assertThat(r.status()).as(r.raw()).isEqualTo(409);
    assertThat(r.body().get("message").asText())
        .contains("nothing to release")
        .contains("release #1");
  }

  @Test
  @Order(3)
  void promotionToProductionWaitsForAnotherAdmin() {
    Response r = hub.post(project("/releases/1/promote"), adminA, Map.of());
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    assertThat(texts(r.body().get("environments"))).containsExactly(PRODUCTION);
    String id = r.body().get("id").asText();
    awaitStatus(id, "pending_approval");
    assertThat(deployHead(PRODUCTION)).isNull();

    assertThat(inboxItem(adminA, id)).as("the requester's own inbox").isNull();
    JsonNode item =
        await().atMost(Duration.ofSeconds(20)).until(() -> inboxItem(adminB, id), x -> x != null);
    assertThat(item.get("kind").asText()).isEqualTo("promotion");
    JsonNode subject = item.get("subject");
    assertThat(subject.get("type").asText()).isEqualTo("deployment");
    assertThat(subject.get("project").asText()).isEqualTo("shop");
    assertThat(subject.get("release").asInt()).isEqualTo(1);
    assertThat(subject.get("action").asText()).isEqualTo("promote");
    assertThat(texts(subject.get("environments"))).containsExactly(PRODUCTION);

    Response self =
        hub.post("/api/v2/approvals/" + item.get("id").asText() + "/approve", adminA, Map.of());
    assertThat(self.status()).isEqualTo(403);
    Response approved =
        hub.post(
            "/api/v2/approvals/" + item.get("id").asText() + "/approve",
            adminB,
            Map.of("comment", "ok"));
    assertThat(approved.status()).as(approved.raw()).isEqualTo(202);

    JsonNode done = awaitStatus(id, "deployed");
    assertThat(done.get("decision").get("outcome").asText()).isEqualTo("require_approval");
    assertThat(done.get("approvals").get(0).get("status").asText()).isEqualTo("approved");
    assertThat(deployFiles(PRODUCTION))
        .isNotEmpty()
        .isEqualTo(rendered(release1Source, PRODUCTION));
    assertThat(
            repos
                .commitInfo(
                    orgId, UUID.fromString(projectId), done.get("commits").get(PRODUCTION).asText())
                .orElseThrow()
                .message())
        .startsWith("Promote release #1 of shop to production\n")
        .contains("GitOpsHQ-Change: release.promoted");

    Response again = hub.post(project("/releases/1/promote"), adminA, Map.of());
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.body().get("message").asText()).contains("already in production");

    // The release's signed evidence: the vote, the commits per deploy branch, and it verifies.
    Response ev = hub.get(project("/releases/1/evidence"), OWNER_TOKEN);
    assertThat(ev.status()).as(ev.raw()).isEqualTo(200);
    JsonNode evidence = ev.body().get("evidence");
    assertThat(evidence.get("kind").asText()).isEqualTo("release");
    assertThat(evidence.get("configuration").get("sourceCommit").asText())
        .isEqualTo(release1Source);
    assertThat(evidence.get("configuration").get("configCommits")).isNotEmpty();
    assertThat(evidence.get("deployments").findValuesAsText("action"))
        .containsExactly("deploy", "promote");
    assertThat(evidence.get("deployments").get(1).get("deployCommits").get(PRODUCTION).asText())
        .isEqualTo(done.get("commits").get(PRODUCTION).asText());
    assertThat(evidence.get("decisions").findValuesAsText("outcome")).contains("require_approval");
    assertThat(evidence.get("decisions").findValuesAsText("inputSha256"))
        .allMatch(h -> h.length() == 64);
    assertThat(evidence.get("approvals").get(0).get("votes").get(0).get("comment").asText())
        .isEqualTo("ok");
    JsonNode key = hub.get("/api/v2/evidence/keys", OWNER_TOKEN).body().get("keys").get(0);
    var verified =
        dev.gitopshq.evidence.EvidenceVerifier.verify(
            ev.raw().getBytes(java.nio.charset.StandardCharsets.UTF_8),
            dev.gitopshq.evidence.Ed25519.publicKey(key.get("publicKeyPem").asText()),
            null);
    assertThat(verified.valid()).as(verified.checks().toString()).isTrue();
  }

  @Test
  @Order(4)
  void aFreezeBlocksThePromotionUntilAnAdminBreaksTheGlass() {
    // Release #2: new values for acme and for globex, deployed to staging.
    ok(
        hub.send(
            "PUT",
            project("/values/web/acme/staging"),
            OWNER_TOKEN,
            Map.of("values", Map.of("env", Map.of("LOG_LEVEL", "debug")))));
    ok(
        hub.send(
            "PUT",
            project("/values/web/globex/staging"),
            OWNER_TOKEN,
            Map.of("values", Map.of("replicaCount", 3))));
    Generator.awaitDelivered();
    Response created =
        hub.post(
            project("/releases"),
            member,
            Map.of("description", "debug logs for acme, more globex"));
    assertThat(created.status()).as(created.raw()).isEqualTo(202);
    assertThat(created.body().get("release").get("number").asInt()).isEqualTo(2);
    assertThat(texts(created.body().get("release").get("changes"), "description")).hasSize(2);
    awaitStatus(created.body().get("deployment").get("id").asText(), "deployed");
    release2Source = hub.get(project("/releases/2"), member).body().get("sourceCommit").asText();
    assertThat(deployFiles(STAGING)).isEqualTo(rendered(release2Source, STAGING));

    Instant now = Instant.now();
    Response window =
        hub.post(
            "/api/v2/freeze-windows",
            OWNER_TOKEN,
            Map.of(
                "environment",
                PRODUCTION,
                "startsAt",
                now.minusSeconds(3600).toString(),
                "endsAt",
                now.plusSeconds(3600).toString(),
                "reason",
                "release-end-to-end freeze"));
    assertThat(window.status()).as(window.raw()).isEqualTo(201);
    try {
      String before = deployHead(PRODUCTION);
      Response frozen = hub.post(project("/releases/2/promote"), member, Map.of());
      assertThat(frozen.status()).as(frozen.raw()).isEqualTo(202);
      JsonNode f = awaitStatus(frozen.body().get("id").asText(), "frozen");
      assertThat(f.get("detail").asText())
          .contains("production")
          .contains("release-end-to-end freeze");
      assertThat(deployHead(PRODUCTION)).isEqualTo(before);

      // Release #2 never reached production: there is nothing of it to restore there.
      Response never =
          hub.post(
              project("/rollbacks"),
              adminA,
              Map.of("toRelease", 2, "scope", List.of(Map.of("environment", PRODUCTION))));
      assertThat(never.status()).as(never.raw()).isEqualTo(409);
      assertThat(never.body().get("message").asText()).contains("never deployed to production");

      Response glass =
          hub.post(
              project("/releases/2/promote"),
              adminA,
              Map.of(
                  "breakGlass", true, "justification", "checkout is down for every acme customer"));
      assertThat(glass.status()).as(glass.raw()).isEqualTo(202);
      String id = glass.body().get("id").asText();
      JsonNode done = awaitStatus(id, "deployed");
      assertThat(done.get("breakGlass").asBoolean()).isTrue();
      assertThat(done.get("decision").get("outcome").asText()).isEqualTo("break_glass");
      assertThat(texts(done.get("timeline"), "detail"))
          .anySatisfy(d -> assertThat(d).contains("passing under break-glass"));
      assertThat(deployFiles(PRODUCTION)).isEqualTo(rendered(release2Source, PRODUCTION));

      JsonNode review =
          await().atMost(Duration.ofSeconds(20)).until(() -> inboxItem(adminB, id), x -> x != null);
      assertThat(review.get("kind").asText()).isEqualTo("break_glass_review");
      assertThat(review.get("subject").get("justification").asText()).contains("checkout is down");
    } finally {
      hub.send(
          "DELETE",
          "/api/v2/freeze-windows/" + window.body().get("id").asText(),
          OWNER_TOKEN,
          null);
    }
  }

  @Test
  @Order(5)
  void malformedRollbackScopesNameTheField() {
    assertInvalid(Map.of("toRelease", 1, "scope", "everything"), "scope");
    assertInvalid(Map.of("toRelease", 1, "scope", List.of()), "scope");
    assertInvalid(
        Map.of("toRelease", 1, "scope", List.of(Map.of("tenant", "Acme!"))), "scope[0].tenant");
    assertInvalid(
        Map.of("toRelease", 1, "scope", List.of(Map.of("cluster", "x"))), "scope[0].cluster");
    assertInvalid(
        Map.of("toRelease", 1, "scope", List.of(Map.of("tenant", "initech"))), "scope[0].tenant");
    assertInvalid(
        Map.of("toRelease", 1, "scope", List.of(Map.of("environment", "qa"))),
        "scope[0].environment");
    assertInvalid(Map.of("scope", "all"), "toRelease");
    assertInvalid(Map.of("toRelease", 99, "scope", "all"), "toRelease");
  }

  @Test
  @Order(6)
  void aSelectiveRollbackRestoresOnlyItsScopeFileByFile() {
    SortedMap<String, byte[]> before = deployBytes(STAGING);
    SortedMap<String, byte[]> release1 = renderedBytes(release1Source, STAGING);
    String acme = STAGING_CLUSTER + "/acme/";
    // The scenario only means something when acme's and globex's files changed in release #2.
    assertThat(differing(before, release1)).anySatisfy(p -> assertThat(p).startsWith(acme));
    assertThat(differing(before, release1))
        .anySatisfy(p -> assertThat(p).startsWith(STAGING_CLUSTER + "/globex/"));

    Response r =
        hub.post(
            project("/rollbacks"),
            member,
            Map.of(
                "toRelease",
                1,
                "scope",
                List.of(Map.of("environment", STAGING, "tenant", "acme")),
                "description",
                "acme's debug logs flood the disk"));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    JsonNode release = r.body().get("release");
    assertThat(release.get("number").asInt()).isEqualTo(3);
    assertThat(release.get("kind").asText()).isEqualTo("rollback");
    assertThat(release.get("rollbackOf").asInt()).isEqualTo(1);
    assertThat(release.get("scope").get(0).get("tenant").asText()).isEqualTo("acme");
    JsonNode deployment = r.body().get("deployment");
    assertThat(deployment.get("action").asText()).isEqualTo("rollback");
    assertThat(texts(deployment.get("environments"))).containsExactly(STAGING);
    assertThat(deployment.get("workflowId").asText())
        .isEqualTo("rollback-" + release.get("id").asText());

    JsonNode done = awaitStatus(deployment.get("id").asText(), "deployed");
    SortedMap<String, byte[]> after = deployBytes(STAGING);
    for (String path : union(before, after, release1)) {
      if (path.startsWith(acme)) {
        assertThat(after.get(path)).as(path + " is release #1's").isEqualTo(release1.get(path));
      } else {
        assertThat(after.get(path)).as(path + " is untouched").isEqualTo(before.get(path));
      }
    }
    assertThat(differing(before, after))
        .isNotEmpty()
        .allSatisfy(p -> assertThat(p).startsWith(acme));
    assertThat(deployFiles(PRODUCTION)).isEqualTo(rendered(release2Source, PRODUCTION));

    String message =
        repos
            .commitInfo(
                orgId, UUID.fromString(projectId), done.get("commits").get(STAGING).asText())
            .orElseThrow()
            .message();
    assertThat(message)
        .startsWith("Roll back shop staging to release #1 (tenant acme)\n")
        .contains("GitOpsHQ-Change: release.rolled_back");

    JsonNode listed = hub.get(project("/releases"), viewer).body().get("items");
    assertThat(listed.get(0).get("number").asInt()).isEqualTo(3);
    assertThat(listed.get(0).get("rollbackOf").asInt()).isEqualTo(1);
    JsonNode acmeStaging = null;
    for (JsonNode d : hub.get(project("/deliveries"), viewer).body().get("items")) {
      if (d.get("environment").asText().equals(STAGING)
          && d.get("tenant").asText().equals("acme")) {
        acmeStaging = d;
      } else if (d.get("environment").asText().equals(STAGING)) {
        assertThat(d.get("deployedRelease").asInt()).as("globex in staging").isEqualTo(2);
      }
    }
    assertThat(acmeStaging.get("deployedRelease").asInt()).isEqualTo(3);
  }

  @Test
  @Order(7)
  void aServiceAccountWithReleasesCreateCreatesARelease() {
    JsonNode sa =
        ok(
            hub.post(
                "/api/v2/service-accounts",
                OWNER_TOKEN,
                Map.of(
                    "name", "ci-releases", "scopes", List.of("releases:create", "releases:read"))));
    String token =
        ok(hub.post(
                "/api/v2/service-accounts/" + sa.get("id").asText() + "/tokens",
                OWNER_TOKEN,
                Map.of("name", "ci")))
            .get("token")
            .asText();
    ok(
        hub.send(
            "PUT",
            project("/values/web/globex/staging"),
            OWNER_TOKEN,
            Map.of("values", Map.of("replicaCount", 4))));
    Generator.awaitDelivered();

    Response r = hub.post(project("/releases"), token, Map.of("description", "from CI"));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    assertThat(r.body().get("release").get("requester").get("name").asText())
        .isEqualTo("ci-releases");
    JsonNode done = awaitStatus(r.body().get("deployment").get("id").asText(), "deployed");
    assertThat(
            repos
                .commitInfo(
                    orgId, UUID.fromString(projectId), done.get("commits").get(STAGING).asText())
                .orElseThrow()
                .author())
        .isEqualTo("ci-releases");
  }

  @Test
  @Order(8)
  void viewersReadButCannotRelease() {
    Response r = hub.post(project("/releases"), viewer, Map.of());
    assertThat(r.status()).isEqualTo(403);
    assertThat(hub.post(project("/releases/1/promote"), viewer, Map.of()).status()).isEqualTo(403);
    assertThat(
            hub.post(project("/rollbacks"), viewer, Map.of("toRelease", 1, "scope", "all"))
                .status())
        .isEqualTo(403);
    assertThat(hub.get(project("/releases"), viewer).status()).isEqualTo(200);
  }

  @Test
  @Order(9)
  void onlyTheRequesterCancelsADeploymentWaitingForApproval() {
    int latest =
        hub.get(project("/releases"), viewer).body().get("items").get(0).get("number").asInt();
    Response r = hub.post(project("/releases/" + latest + "/promote"), adminA, Map.of());
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    String id = r.body().get("id").asText();
    awaitStatus(id, "pending_approval");
    await().atMost(Duration.ofSeconds(20)).until(() -> inboxItem(adminB, id) != null);

    Response other = hub.post(project("/deployments/" + id + "/cancel"), adminB, null);
    assertThat(other.status()).isEqualTo(403);
    Response mine = hub.post(project("/deployments/" + id + "/cancel"), adminA, null);
    assertThat(mine.status()).as(mine.raw()).isEqualTo(202);
    JsonNode d = awaitStatus(id, "cancelled");
    assertThat(d.get("commits")).isEmpty();
    await().atMost(Duration.ofSeconds(20)).until(() -> inboxItem(adminB, id) == null);
    assertThat(hub.post(project("/deployments/" + id + "/cancel"), adminA, null).status())
        .isEqualTo(409);
  }

  @Test
  @Order(10)
  void aReleaseWhoseGenerationFailedFailsWithTheGenerationsReason() {
    // The chart requires a host once its ingress is enabled: this revision cannot be rendered.
    ok(
        hub.send(
            "PUT",
            project("/values/web/acme/production"),
            OWNER_TOKEN,
            Map.of("values", Map.of("ingress", Map.of("enabled", true)))));
    long revision = Generator.awaitFailed();
    String before = deployHead(STAGING);

    Response r = hub.post(project("/releases"), member, Map.of());
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    JsonNode d = awaitStatus(r.body().get("deployment").get("id").asText(), "failed");
    assertThat(d.get("detail").asText())
        .startsWith(
            "the release has no delivery to deploy: the delivery generation of revision "
                + revision
                + " failed: ")
        .contains("ingress.host is required");
    assertThat(deployHead(STAGING)).isEqualTo(before);
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** Delivery generation of the project's revisions, as the hub runs it. */
  static final class Generator {
    /** Waits until the current configuration revision's delivery is generated; returns it. */
    static long awaitDelivered() {
      long revision = revision();
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> generationStatus(revision),
              st -> {
                if ("failed".equals(st)) {
                  throw new AssertionError("the generation of revision " + revision + " failed");
                }
                return "committed".equals(st) || "unchanged".equals(st);
              });
      return revision;
    }

    /** Waits until the current revision's generation failed; returns the revision. */
    static long awaitFailed() {
      long revision = revision();
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> "failed".equals(generationStatus(revision)));
      return revision;
    }

    static long revision() {
      return HubTestSupport.count(
          "select config_revision from projects where id = ?", UUID.fromString(projectId));
    }

    static String generationStatus(long revision) {
      try (var c = HubTestSupport.db();
          var ps =
              c.prepareStatement(
                  "select status from generations where project_id = ? and revision = ?")) {
        ps.setObject(1, UUID.fromString(projectId));
        ps.setLong(2, revision);
        try (var rs = ps.executeQuery()) {
          return rs.next() ? rs.getString(1) : null;
        }
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Waits until the hub has published the release and freeze policies into OPA. */
  static void awaitReleasePolicies() {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () ->
                hub.post(
                                "/api/v2/policies/release/evaluate",
                                OWNER_TOKEN,
                                Map.of("input", Map.of()))
                            .status()
                        == 200
                    && hub.post(
                                "/api/v2/policies/freeze/evaluate",
                                OWNER_TOKEN,
                                Map.of("input", Map.of()))
                            .status()
                        == 200);
  }

  /**
   * Appends an organization environment unless it exists. As rows: creating one through the API
   * recommits every project of the organization, and other tests sharing this database insert
   * projects as bare rows without a repository.
   */
  static void environment(String name) {
    HubTestSupport.exec(
        "insert into environments (id, org_id, name, position, created_at)"
            + " select ?, ?, ?, coalesce(max(position), 0) + 1, now() from environments where org_id = ?"
            + " on conflict (org_id, name) do nothing",
        UUID.randomUUID(),
        orgId,
        name,
        orgId);
  }

  /** Creates an organization tenant unless another test of this run already did. */
  static void tenant(String name) {
    Response r = hub.post("/api/v2/tenants", OWNER_TOKEN, Map.of("name", name));
    assertThat(r.status()).as(r.raw()).isIn(201, 409);
  }

  static String project(String path) {
    return "/api/v2/projects/" + projectId + path;
  }

  static JsonNode ok(Response r) {
    assertThat(r.status()).as(r.raw()).isBetween(200, 299);
    return r.body();
  }

  /** The bootstrap owner's organization (AdapterStack and DirectDeployIT use it too). */
  static String orgOf() {
    return HubTestSupport.defaultOrgId().toString();
  }

  static String token(String role) {
    return hub.memberToken(role);
  }

  static JsonNode awaitStatus(String deploymentId, String status) {
    return await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> hub.get(project("/deployments/" + deploymentId), OWNER_TOKEN).body(),
            d -> {
              String s = d.get("status").asText();
              if (!s.equals(status)
                  && List.of("deployed", "frozen", "rejected", "expired", "cancelled", "failed")
                      .contains(s)) {
                throw new AssertionError(
                    "deployment ended " + s + " instead of " + status + ": " + d);
              }
              return s.equals(status);
            });
  }

  /** The caller's inbox item about the deployment, or null. */
  static JsonNode inboxItem(String token, String deploymentId) {
    for (JsonNode i : hub.get("/api/v2/approvals", token).body().get("items")) {
      if (i.get("id").asText().startsWith(deploymentId)) {
        return i;
      }
    }
    return null;
  }

  static void assertInvalid(Map<String, Object> body, String field) {
    Response r = hub.post(project("/rollbacks"), member, body);
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(texts(r.body().get("errors"), "field")).as(r.raw()).contains(field);
  }

  static String deployHead(String env) {
    return repos
        .head(orgId, UUID.fromString(projectId), ProjectRepos.deployBranch(env))
        .map(ObjectId::name)
        .orElse(null);
  }

  static SortedMap<String, byte[]> deployBytes(String env) {
    return repos.readFiles(
        orgId,
        UUID.fromString(projectId),
        repos.head(orgId, UUID.fromString(projectId), ProjectRepos.deployBranch(env)).orElseThrow(),
        "");
  }

  static SortedMap<String, byte[]> renderedBytes(String commit, String env) {
    return repos.readFiles(
        orgId, UUID.fromString(projectId), ObjectId.fromString(commit), "rendered/" + env);
  }

  static Map<String, String> deployFiles(String env) {
    return strings(deployBytes(env));
  }

  static Map<String, String> rendered(String commit, String env) {
    return strings(renderedBytes(commit, env));
  }

  static Map<String, String> strings(SortedMap<String, byte[]> files) {
    Map<String, String> out = new TreeMap<>();
    files.forEach((k, v) -> out.put(k, new String(v, StandardCharsets.UTF_8)));
    return out;
  }

  static List<String> differing(SortedMap<String, byte[]> a, SortedMap<String, byte[]> b) {
    List<String> out = new ArrayList<>();
    for (String p : union(a, b)) {
      if (!java.util.Arrays.equals(a.get(p), b.get(p))) {
        out.add(p);
      }
    }
    return out;
  }

  @SafeVarargs
  static List<String> union(SortedMap<String, byte[]>... maps) {
    java.util.TreeSet<String> all = new java.util.TreeSet<>();
    for (SortedMap<String, byte[]> m : maps) {
      all.addAll(m.keySet());
    }
    return List.copyOf(all);
  }

  static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  static List<String> texts(JsonNode array, String field) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.path(field).asText()));
    return out;
  }

  /**
   * Uploads the webapp test chart (activities' test resources), unless another test of this run
   * already uploaded its version (versions are immutable; every archive of it is the same chart).
   */
  static void uploadChart() {
    Response up = rawPost("/api/v2/charts", TarGz.webapp().build());
    if (up.status() == 409) {
      assertThat(hub.get("/api/v2/charts/webapp/versions/1.2.0", OWNER_TOKEN).status())
          .isEqualTo(200);
      return;
    }
    assertThat(up.status()).as(up.raw()).isIn(200, 201);
  }

  static Response rawPost(String path, byte[] body) {
    try {
      var http = java.net.http.HttpClient.newHttpClient();
      var req =
          java.net.http.HttpRequest.newBuilder(
                  java.net.URI.create(
                      "http://127.0.0.1:"
                          + hub.context().getEnvironment().getProperty("local.server.port")
                          + path))
              .header("Authorization", "Bearer " + OWNER_TOKEN)
              .header("Content-Type", "application/gzip")
              .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(body))
              .build();
      var res = http.send(req, java.net.http.HttpResponse.BodyHandlers.ofString());
      return new Response(
          res.statusCode(),
          res.body().isEmpty()
              ? null
              : new com.fasterxml.jackson.databind.ObjectMapper().readTree(res.body()),
          res.body());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

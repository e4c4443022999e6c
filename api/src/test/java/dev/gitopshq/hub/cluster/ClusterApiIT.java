package dev.gitopshq.hub.cluster;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The clusters REST API on a real hub, PostgreSQL and Temporal test server. */
class ClusterApiIT {
  static HubTestSupport hub;
  static String viewerToken;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
    viewerToken = hub.memberToken("viewer");
  }

  static String uniqueName(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void registersAClusterAndReturnsTheTokenOnceWithAReadyInstallCommand() {
    String name = uniqueName("prod-eu");
    Response r =
        hub.post(
            "/api/v2/clusters",
            OWNER_TOKEN,
            Map.of(
                "name", name,
                "displayName", "Production, EU \"west\"",
                "provider", "eks",
                "region", "eu-west-1",
                "environment", "production",
                "labels", Map.of("tier", "production", "team", "platform")));

    assertThat(r.status()).isEqualTo(201);
    String token = r.body().get("registrationToken").asText();
    assertThat(token).matches("ghqa_reg_[0-9a-f]{64}");
    Instant expiresAt = Instant.parse(r.body().get("expiresAt").asText());
    assertThat(Duration.between(Instant.now(), expiresAt))
        .isBetween(Duration.ofMinutes(59), Duration.ofMinutes(61));
    JsonNode cluster = r.body().get("cluster");
    assertThat(cluster.get("name").asText()).isEqualTo(name);
    assertThat(cluster.get("status").asText()).isEqualTo("Pending");
    assertThat(cluster.get("labels").get("tier").asText()).isEqualTo("production");

    String install = r.body().get("installCommand").asText();
    assertThat(install)
        .startsWith("helm upgrade --install gitopshq-agent gitopshq-agent --repo http")
        .containsPattern("--repo http://localhost:\\d+/charts --version \\d+\\.\\d+\\.\\d+ ")
        .contains("--namespace gitopshq-system --create-namespace")
        .contains("--set-string registrationToken=" + token)
        .contains("--set-string hub.address=" + hub.grpcAddress())
        .contains("--set-string agent.clusterName=" + name)
        .contains("--set-string 'agent.displayName=Production\\, EU \"west\"'")
        .contains("--set-string agent.provider=eks")
        .contains("--set-string agent.region=eu-west-1")
        .contains("--set-string agent.environment=production");

    // Shown once: the hub keeps only the hash, and nothing returns the token again.
    assertThat(
            HubTestSupport.count(
                "select count(*) from cluster_tokens where token_hash = ?",
                Tokens.sha256Hex(token)))
        .isEqualTo(1);
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where details like ? or actor_name like ?",
                "%" + token + "%",
                "%" + token + "%"))
        .isZero();
    Response get = hub.get("/api/v2/clusters/" + cluster.get("id").asText(), OWNER_TOKEN);
    assertThat(get.raw()).doesNotContain(token);
  }

  @Test
  void refusesInvalidFieldsNamingEachOneAndWritesNothing() {
    long before = HubTestSupport.count("select count(*) from clusters");
    long auditBefore = HubTestSupport.count("select count(*) from audit_log");

    Response upper = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", "Prod_EU"));
    assertThat(upper.status()).isEqualTo(400);
    assertThat(upper.body().get("errors").get(0).get("field").asText()).isEqualTo("name");
    assertThat(upper.body().get("errors").get(0).get("reason").asText()).contains("RFC 1123");

    Response tooLong = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", "a".repeat(64)));
    assertThat(tooLong.status()).isEqualTo(400);
    assertThat(tooLong.body().get("errors").get(0).get("reason").asText()).contains("63");

    Response several =
        hub.post(
            "/api/v2/clusters",
            OWNER_TOKEN,
            Map.of("name", "", "provider", "mainframe", "labels", Map.of("bad key!", "x")));
    assertThat(several.status()).isEqualTo(400);
    assertThat(several.body().get("errors").findValuesAsText("field"))
        .containsExactlyInAnyOrder("name", "provider", "labels.bad key!");

    Response unknownField =
        hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", "ok-name", "colour", "red"));
    assertThat(unknownField.status()).isEqualTo(400);
    assertThat(unknownField.body().get("errors").get(0).get("field").asText()).isEqualTo("colour");

    Response wrongType =
        hub.post(
            "/api/v2/clusters", OWNER_TOKEN, Map.of("name", "ok-name", "labels", List.of("x")));
    assertThat(wrongType.status()).isEqualTo(400);
    assertThat(wrongType.body().get("errors").get(0).get("field").asText()).isEqualTo("labels");

    Response notJson = hub.post("/api/v2/clusters", OWNER_TOKEN, "{not json");
    assertThat(notJson.status()).isEqualTo(400);

    assertThat(HubTestSupport.count("select count(*) from clusters")).isEqualTo(before);
    assertThat(HubTestSupport.count("select count(*) from audit_log")).isEqualTo(auditBefore);
  }

  @Test
  void aTakenNameIsAConflictAndLeavesTheFirstClusterAlone() {
    String name = uniqueName("dup");
    assertThat(hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)).status())
        .isEqualTo(201);
    long tokens = HubTestSupport.count("select count(*) from cluster_tokens");

    Response again = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name, "region", "x"));
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.body().get("message").asText()).contains(name);
    assertThat(HubTestSupport.count("select count(*) from clusters where name = ?", name))
        .isEqualTo(1);
    assertThat(HubTestSupport.count("select count(*) from cluster_tokens")).isEqualTo(tokens);
  }

  @Test
  void everyBadTokenGetsTheSameUnauthorizedAnswer() {
    Response none = hub.get("/api/v2/clusters", null);
    Response garbage = hub.get("/api/v2/clusters", "nope");
    Response wellFormedButUnknown = hub.get("/api/v2/clusters", "ghqp_" + "0".repeat(64));
    Response registrationToken =
        hub.get(
            "/api/v2/clusters",
            hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", uniqueName("auth")))
                .body()
                .get("registrationToken")
                .asText());

    for (Response r : List.of(none, garbage, wellFormedButUnknown, registrationToken)) {
      assertThat(r.status()).isEqualTo(401);
      assertThat(r.raw()).isEqualTo(none.raw());
    }
  }

  @Test
  void viewersReadButCannotRegister() {
    Response post = hub.post("/api/v2/clusters", viewerToken, Map.of("name", uniqueName("viewer")));
    assertThat(post.status()).isEqualTo(403);
    assertThat(post.body().get("message").asText()).contains("clusters:write");
    assertThat(hub.get("/api/v2/clusters", viewerToken).status()).isEqualTo(200);
  }

  @Test
  void unknownClusterIsNotFound() {
    Response r = hub.get("/api/v2/clusters/" + UUID.randomUUID(), OWNER_TOKEN);
    assertThat(r.status()).isEqualTo(404);
    assertThat(hub.get("/api/v2/clusters/not-a-uuid", OWNER_TOKEN).status()).isEqualTo(400);
    assertThat(
            hub.post("/api/v2/clusters/" + UUID.randomUUID() + "/join-token", OWNER_TOKEN, null)
                .status())
        .isEqualTo(404);
  }

  @Test
  void filtersByLabelAndPatchesDisplayNameAndLabels() {
    String prod = uniqueName("lbl-prod");
    String dev = uniqueName("lbl-dev");
    String id =
        hub.post(
                "/api/v2/clusters",
                OWNER_TOKEN,
                Map.of("name", prod, "labels", Map.of("tier", "production")))
            .body()
            .get("cluster")
            .get("id")
            .asText();
    hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", dev, "labels", Map.of("tier", "dev")));

    List<String> names =
        hub.get("/api/v2/clusters?label=tier:production", OWNER_TOKEN)
            .body()
            .get("items")
            .findValuesAsText("name");
    assertThat(names).contains(prod).doesNotContain(dev);
    assertThat(hub.get("/api/v2/clusters?label=tier", OWNER_TOKEN).status()).isEqualTo(400);

    Response patched =
        hub.patch(
            "/api/v2/clusters/" + id,
            OWNER_TOKEN,
            Map.of(
                "displayName",
                "Prod EU",
                "labels",
                Map.of("tier", "production", "region", "eu-west-1")));
    assertThat(patched.status()).isEqualTo(200);
    assertThat(patched.body().get("displayName").asText()).isEqualTo("Prod EU");
    assertThat(patched.body().get("labels").get("region").asText()).isEqualTo("eu-west-1");
    assertThat(patched.body().get("name").asText()).isEqualTo(prod);
    assertThat(hub.patch("/api/v2/clusters/" + id, OWNER_TOKEN, Map.of("name", "renamed")).status())
        .isEqualTo(400);

    Response audit = hub.get("/api/v2/audit?action=cluster.updated&target=" + id, OWNER_TOKEN);
    assertThat(audit.body().get("items")).hasSize(1);
    assertThat(
            audit.body().get("items").get(0).get("details").get("displayName").get("to").asText())
        .isEqualTo("Prod EU");
  }

  @Test
  void aJoinTokenReplacesEarlierUnusedTokens() {
    Response created =
        hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", uniqueName("join")));
    String id = created.body().get("cluster").get("id").asText();
    String first = created.body().get("registrationToken").asText();

    Response join = hub.post("/api/v2/clusters/" + id + "/join-token", OWNER_TOKEN, null);
    assertThat(join.status()).isEqualTo(201);
    String second = join.body().get("registrationToken").asText();
    assertThat(second).matches("ghqa_reg_[0-9a-f]{64}").isNotEqualTo(first);
    assertThat(join.body().get("installCommand").asText()).contains(second);

    assertThat(
            HubTestSupport.count(
                "select count(*) from cluster_tokens where token_hash = ? and status = 'superseded'",
                Tokens.sha256Hex(first)))
        .isEqualTo(1);
    assertThat(hub.get("/api/v2/clusters/" + id, OWNER_TOKEN).body().get("status").asText())
        .isEqualTo("Pending");
  }

  @Test
  void anExpiredRegistrationShowsAsExpired() {
    Response created =
        hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", uniqueName("late")));
    String id = created.body().get("cluster").get("id").asText();
    HubTestSupport.exec(
        "update cluster_tokens set expires_at = now() - interval '1 second' where cluster_id = ?::uuid",
        id);
    assertThat(hub.get("/api/v2/clusters/" + id, OWNER_TOKEN).body().get("status").asText())
        .isEqualTo("Expired");
  }

  @Test
  void featuresReportPlanGatesAndLimits() {
    Response r = hub.get("/api/v2/features", viewerToken);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body().get("plan").asText()).isEqualTo("enterprise");
    assertThat(r.body().get("features").get("FeatureSelectiveRollback").asBoolean()).isTrue();
    assertThat(r.body().get("limits").get("registrationTokenTtlSeconds").asInt()).isEqualTo(3600);
  }
}

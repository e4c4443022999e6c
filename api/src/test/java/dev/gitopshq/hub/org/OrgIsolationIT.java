package dev.gitopshq.hub.org;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.hub.HubEndpoints;
import dev.gitopshq.hub.HubEndpoints.Endpoint;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.delivery.DeliveryFixtures;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Organizations are isolated: the instance's admin creates them, and an owner of one organization
 * reaches nothing of another. Every endpoint of the hub with a path variable is called by
 * organization A's owner with organization B's objects (a 404, never data, and nothing changes in
 * B), and every list A can read is searched for B's names.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OrgIsolationIT {
  static HubTestSupport hub;
  static OpaTestServer opa;

  /** Organization A: its owner is the caller of the matrix. */
  static String tokenA;

  /** Organization B's objects, by kind. */
  static final Map<String, String> b = new LinkedHashMap<>();

  static String tokenB;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.sharedWithOpa();
    opa = hub.opa();
    tokenA = createOrg("org-a-" + suffix()).get("ownerToken").asText();
    JsonNode orgB = createOrg("org-b-" + suffix());
    tokenB = orgB.get("ownerToken").asText();
    b.put("org", orgB.get("org").get("id").asText());
    seedOrgB();
  }

  static String suffix() {
    return UUID.randomUUID().toString().substring(0, 8);
  }

  static JsonNode createOrg(String slug) {
    return hub.createOrg(slug);
  }

  static String id(Response r) {
    assertThat(r.status()).as(r.raw()).isBetween(200, 202);
    return r.body().get("id").asText();
  }

  /** Gives organization B one of every kind of object, each with a name only B has. */
  static void seedOrgB() {
    String s = suffix();
    b.put("clusterName", "b-cluster-" + s);
    JsonNode cluster =
        hub.post("/api/v2/clusters", tokenB, Map.of("name", b.get("clusterName"))).body();
    b.put("cluster", cluster.get("cluster").get("id").asText());

    b.put("memberEmail", "b-member-" + s + "@example.com");
    b.put(
        "member",
        id(
            hub.post(
                "/api/v2/members",
                tokenB,
                Map.of("email", b.get("memberEmail"), "name", "B member", "role", "admin"))));
    b.put(
        "memberToken",
        id(
            hub.post(
                "/api/v2/members/" + b.get("member") + "/tokens", tokenB, Map.of("name", "t"))));

    b.put("teamName", "b-team-" + s);
    b.put("team", id(hub.post("/api/v2/teams", tokenB, Map.of("name", b.get("teamName")))));
    assertThat(
            hub.post(
                    "/api/v2/teams/" + b.get("team") + "/members",
                    tokenB,
                    Map.of("memberId", b.get("member")))
                .status())
        .isEqualTo(200);
    b.put(
        "grant",
        id(
            hub.post(
                "/api/v2/grants",
                tokenB,
                Map.of("teamId", b.get("team"), "role", "viewer", "scope", "projects"))));

    b.put("saName", "b-sa-" + s);
    b.put(
        "sa",
        id(
            hub.post(
                "/api/v2/service-accounts",
                tokenB,
                Map.of("name", b.get("saName"), "scopes", List.of("clusters:read")))));
    b.put(
        "saToken",
        id(
            hub.post(
                "/api/v2/service-accounts/" + b.get("sa") + "/tokens",
                tokenB,
                Map.of("name", "t"))));

    b.put("env", "b-env-" + s);
    assertThat(hub.post("/api/v2/environments", tokenB, Map.of("name", b.get("env"))).status())
        .isEqualTo(201);
    b.put("tenant", "b-tenant-" + s);
    assertThat(hub.post("/api/v2/tenants", tokenB, Map.of("name", b.get("tenant"))).status())
        .isEqualTo(201);
    b.put("variable", "b_var_" + s.replace('-', '_'));
    Response variable =
        hub.send("PUT", "/api/v2/variables/" + b.get("variable"), tokenB, Map.of("value", "b"));
    assertThat(variable.status()).as(variable.raw()).isBetween(200, 201);
    b.put("chart", "b-chart-" + s);
    Response chart =
        new DeliveryFixtures(hub)
            .upload(
                tokenB,
                DeliveryFixtures.chart(b.get("chart"), "1.0.0", "B's chart"),
                "application/gzip");
    assertThat(chart.status()).as(chart.raw()).isEqualTo(201);
    b.put("policy", "b-policy-" + s);
    Response policy =
        hub.send(
            "PUT",
            "/api/v2/policies/" + b.get("policy"),
            tokenB,
            Map.of(
                "rego",
                "package gitopshq[\""
                    + b.get("policy")
                    + "\"]\n\ndecision := {\"outcome\": \"b\"}\n"));
    assertThat(policy.status()).as(policy.raw()).isBetween(200, 201);
    b.put(
        "freeze",
        id(
            hub.post(
                "/api/v2/freeze-windows",
                tokenB,
                Map.of(
                    "environment",
                    b.get("env"),
                    "startsAt",
                    Instant.now().plus(Duration.ofDays(1)).toString(),
                    "endsAt",
                    Instant.now().plus(Duration.ofDays(2)).toString(),
                    "reason",
                    "B's freeze"))));

    b.put("projectName", "b-project-" + s);
    b.put(
        "project", id(hub.post("/api/v2/projects", tokenB, Map.of("name", b.get("projectName")))));
    b.put(
        "deployToken",
        id(
            hub.post(
                "/api/v2/projects/" + b.get("project") + "/deploy-tokens",
                tokenB,
                Map.of("name", "argo"))));

    // A command waiting for approval, so B has an approval too (its agent, never connected here,
    // is taken to report the capability the command needs).
    HubTestSupport.exec(
        "update clusters set capabilities = '{observe,argocd.write}' where id = ?::uuid",
        b.get("cluster"));
    Response bind =
        hub.send(
            "PUT",
            "/api/v2/clusters/" + b.get("cluster") + "/approval-policy",
            tokenB,
            Map.of("requireApproval", List.of("sync"), "requiredApprovers", 1));
    assertThat(bind.status()).as(bind.raw()).isEqualTo(200);
    b.put("approvalPolicy", "b-approval-" + s);
    Response approvalPolicy =
        hub.post(
            "/api/v2/approval-policies",
            tokenB,
            Map.of(
                "name",
                b.get("approvalPolicy"),
                "selector",
                Map.of("matchLabels", Map.of("b-only", s))));
    assertThat(approvalPolicy.status()).as(approvalPolicy.raw()).isEqualTo(201);
    b.put(
        "command",
        id(
            hub.post(
                "/api/v2/clusters/" + b.get("cluster") + "/commands",
                tokenB,
                Map.of(
                    "type",
                    "sync",
                    "target",
                    Map.of("namespace", "argocd", "kind", "Application", "name", "b-app")))));
    await()
        .atMost(Duration.ofSeconds(60))
        .alias("B's command waits for approval")
        .untilAsserted(
            () ->
                assertThat(
                        hub.get("/api/v2/commands/" + b.get("command"), tokenB)
                            .body()
                            .get("approvals"))
                    .as(hub.get("/api/v2/commands/" + b.get("command"), tokenB).raw())
                    .hasSize(1));
    b.put(
        "credential",
        id(
            hub.post(
                "/api/v2/credentials",
                tokenB,
                Map.of("name", "b-credential-" + s, "type", "opaque", "data", Map.of("k", "v")))));
    b.put(
        "approval",
        hub.get("/api/v2/commands/" + b.get("command"), tokenB)
            .body()
            .get("approvals")
            .get(0)
            .get("id")
            .asText());
  }

  /** B's object for a path variable of an endpoint. */
  static String value(String path, String variable) {
    return switch (variable) {
      case "clusterId" -> b.get("cluster");
      case "projectId" -> b.get("project");
      case "memberId" -> b.get("member");
      case "tokenId" ->
          path.startsWith("/api/v2/members")
              ? b.get("memberToken")
              : path.startsWith("/api/v2/service-accounts")
                  ? b.get("saToken")
                  : b.get("deployToken");
      // Under B's cluster: whatever the id, another organization's cluster answers 404 first.
      case "deploymentId", "findingId", "checkId" -> UUID.randomUUID().toString();
      case "workflowId" -> b.get("command"); // a command's workflow id is its id
      case "number", "revision" -> "1";
      case "version" ->
          path.startsWith("/api/v2/charts") ? "1.0.0" : path.contains("/resources/") ? "v1" : "1";
      case "group" -> "apps";
      case "kind" -> "Deployment";
      case "namespace" -> "demo";
      case "key" -> b.get("variable");
      case "env", "environment" -> b.get("env");
      case "tenant" -> b.get("tenant");
      case "workload" -> "web";
      case "name" ->
          path.startsWith("/api/v2/environments")
              ? b.get("env")
              : path.startsWith("/api/v2/tenants")
                  ? b.get("tenant")
                  : path.startsWith("/api/v2/charts")
                      ? b.get("chart")
                      : path.startsWith("/api/v2/policies")
                          ? b.get("policy")
                          : path.startsWith("/api/v2/approval-policies")
                              ? b.get("approvalPolicy")
                              : "web";
      case "id" -> {
        String kind = path.split("/")[3];
        yield switch (kind) {
          case "clusters" -> b.get("cluster");
          case "commands" -> b.get("command");
          case "approvals" -> b.get("approval");
          case "members" -> b.get("member");
          case "service-accounts" -> b.get("sa");
          case "freeze-windows" -> b.get("freeze");
          case "projects" -> b.get("project");
          case "orgs" -> b.get("org");
          case "credentials" -> b.get("credential");
          case "teams" -> b.get("team");
          case "grants" -> b.get("grant");
          default -> throw new IllegalStateException("no object of B for " + path);
        };
      }
      default ->
          throw new IllegalStateException("no object of B for {" + variable + "} in " + path);
    };
  }

  /** Every REST endpoint of the hub, from Spring's own mapping. */
  static List<Endpoint> endpoints() {
    return HubEndpoints.under(hub, "/api/v2/");
  }

  /** The pattern with each path variable replaced by B's object. */
  static String fill(String pattern) {
    return HubEndpoints.variables(pattern, variable -> value(pattern, variable));
  }

  /** What organization B looks like to its own owner: objects and the audit chain's length. */
  static String stateOfB() {
    StringBuilder s = new StringBuilder();
    for (String path :
        List.of(
            "/api/v2/clusters/" + b.get("cluster"),
            "/api/v2/members",
            "/api/v2/service-accounts/" + b.get("sa"),
            "/api/v2/members/" + b.get("member") + "/tokens",
            "/api/v2/service-accounts/" + b.get("sa") + "/tokens",
            "/api/v2/projects/" + b.get("project"),
            "/api/v2/projects/" + b.get("project") + "/deploy-tokens",
            "/api/v2/environments/" + b.get("env"),
            "/api/v2/tenants/" + b.get("tenant"),
            "/api/v2/variables",
            "/api/v2/charts/" + b.get("chart"),
            "/api/v2/policies/" + b.get("policy"),
            "/api/v2/freeze-windows/" + b.get("freeze"),
            "/api/v2/approvals",
            "/api/v2/clusters/" + b.get("cluster") + "/approval-policy",
            "/api/v2/approval-policies/" + b.get("approvalPolicy"),
            "/api/v2/teams/" + b.get("team"),
            "/api/v2/grants")) {
      Response r = hub.get(path, tokenB);
      assertThat(r.status()).as(path + " " + r.raw()).isEqualTo(200);
      s.append(path).append(' ').append(r.raw().replaceAll("\"lastUsedAt\":\"[^\"]*\"", ""));
    }
    s.append(
        HubTestSupport.count(
            "select count(*) from audit_log where org_id = ?::uuid", b.get("org")));
    return s.toString();
  }

  /**
   * Endpoints that create or replace an object of the caller's own organization by name: another
   * organization having an object of that name does not matter to them.
   */
  static final Set<String> OWN_NAMESPACE =
      Set.of("PUT /api/v2/variables/{key}", "PUT /api/v2/policies/{name}");

  /**
   * Endpoints for the operator organization's owners ({@code orgs:write}), who act on every
   * organization by design: any other caller gets the same 403 whatever the id, so it learns
   * nothing of B.
   */
  static final Set<String> OPERATOR_ONLY = Set.of("PUT /api/v2/orgs/{id}/plan");

  /** A valid body for each write, so that only the object's organization can refuse it. */
  static Object body(Endpoint e) {
    if (!Set.of("POST", "PUT", "PATCH", "DELETE").contains(e.method())) {
      return null;
    }
    Map<String, Object> sync =
        Map.of(
            "type",
            "sync",
            "target",
            Map.of("namespace", "argocd", "kind", "Application", "name", "b-app"));
    return switch (e.key()) {
      case "PATCH /api/v2/members/{id}" -> Map.of("role", "viewer");
      case "PATCH /api/v2/service-accounts/{id}" -> Map.of("disabled", true);
      case "PATCH /api/v2/environments/{name}", "PATCH /api/v2/projects/{id}" ->
          Map.of("description", "taken over");
      case "PATCH /api/v2/teams/{id}" -> Map.of("name", "taken-over");
      case "POST /api/v2/teams/{id}/members" -> Map.of("memberId", b.get("member"));
      case "PATCH /api/v2/tenants/{name}", "PATCH /api/v2/clusters/{id}" ->
          Map.of("displayName", "taken over");
      case "POST /api/v2/projects/{projectId}/rollbacks" -> Map.of("toRelease", 1, "scope", "all");
      case "POST /api/v2/projects/{projectId}/deploy-tokens",
          "POST /api/v2/service-accounts/{id}/tokens",
          "POST /api/v2/members/{id}/tokens" ->
          Map.of("name", "stolen");
      case "PUT /api/v2/projects/{id}/bindings/{name}" ->
          Map.of("kind", "manifests", "source", "web");
      case "POST /api/v2/projects/{id}/bindings" ->
          Map.of("name", "web", "kind", "manifests", "source", "web");
      case "POST /api/v2/projects/{id}/workloads" ->
          Map.of("name", "web", "chart", b.get("chart"), "version", "1.0.0");
      case "PUT /api/v2/projects/{id}/workloads/{name}" ->
          Map.of("chart", b.get("chart"), "version", "1.0.0");
      case "POST /api/v2/policies/{name}/evaluate" -> Map.of("input", Map.of());
      case "POST /api/v2/clusters/{clusterId}/commands" -> sync;
      case "PUT /api/v2/manifest-bundles/{name}" ->
          Map.of(
              "files",
              Map.of("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"));
      case "PUT /api/v2/kustomize-bases/{name}" ->
          Map.of(
              "files",
              Map.of(
                  "kustomization.yaml",
                  "resources: [cm.yaml]\n",
                  "cm.yaml",
                  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"));
      case "PUT /api/v2/projects/{id}/variables" ->
          Map.of("scope", "project", "key", "k", "value", "v");
      case "PUT /api/v2/projects/{id}/values/{workload}/{tenant}/{environment}" ->
          Map.of("values", Map.of("replicaCount", 9));
      case "POST /api/v2/approvals/{id}/reject", "POST /api/v2/approvals/{id}/approve" ->
          Map.of("comment", "not yours");
      case "PUT /api/v2/variables/{key}" -> Map.of("value", "a's own");
      case "PUT /api/v2/policies/{name}", "POST /api/v2/policies/{name}/what-if" ->
          Map.of(
              "rego",
              "package gitopshq[\""
                  + b.get("policy")
                  + "\"]\n\ndecision := {\"outcome\": \"a\"}\n");
      default -> e.method().equals("DELETE") ? null : Map.of();
    };
  }

  @Test
  @Order(2)
  void everyEndpointAnswersAnotherOrganizationsObjectWith404AndChangesNothing()
      throws InterruptedException {
    String before = stateOfB();
    List<Endpoint> all = endpoints();
    List<String> refusals = new ArrayList<>();
    int called = 0;
    // The upserts into A's own namespace go last, so that every read of B's name comes first.
    all.sort(java.util.Comparator.comparing((Endpoint e) -> OWN_NAMESPACE.contains(e.key())));
    for (Endpoint e : all) {
      if (!e.pattern().contains("{")) {
        continue;
      }
      String path = fill(e.pattern());
      if (e.pattern().equals("/api/v2/projects/{id}/variables") && e.method().equals("DELETE")) {
        path += "?scope=project&key=k";
      }
      Object body = body(e);
      Response r = hub.send(e.method(), path, tokenA, body);
      called++;
      if (OWN_NAMESPACE.contains(e.key())) {
        // A name-keyed upsert creates the caller's own object under that name: B's stays B's.
        assertThat(r.status()).as(e + " " + r.raw()).isBetween(200, 201);
        continue;
      }
      if (OPERATOR_ONLY.contains(e.key())) {
        Response unknown =
            hub.send(
                e.method(), path.replace(b.get("org"), UUID.randomUUID().toString()), tokenA, body);
        assertThat(r.status()).as(e + " " + r.raw()).isEqualTo(403);
        assertThat(r.raw()).as(e + " for B's id and an unknown one").isEqualTo(unknown.raw());
        continue;
      }
      if (r.status() != 404) {
        refusals.add(e.key() + " -> " + r.status() + " " + r.raw());
      }
      for (String secret : List.of("clusterName", "memberEmail", "saName", "projectName")) {
        assertThat(r.raw()).as(e.method() + " " + path).doesNotContain(b.get(secret));
      }
    }
    assertThat(refusals).as("endpoints that did not answer 404").isEmpty();
    assertThat(called).as("endpoints with path variables").isGreaterThan(80);
    assertThat(stateOfB()).isEqualTo(before);
    // A's policy of the same name is A's: B's decisions still come from B's module, on every
    // evaluation, across several republish passes.
    for (int i = 0; i < 6; i++) {
      Thread.sleep(500);
      {
        Response decision =
            hub.post(
                "/api/v2/policies/" + b.get("policy") + "/evaluate",
                tokenB,
                Map.of("input", Map.of()));
        assertThat(decision.raw()).as("B's decision").contains("\"outcome\":\"b\"");
        assertThat(
                hub.post(
                        "/api/v2/policies/" + b.get("policy") + "/evaluate",
                        tokenA,
                        Map.of("input", Map.of()))
                    .raw())
            .as("A's decision")
            .contains("\"outcome\":\"a\"");
      }
    }
    // B's tokens still work: nothing A did revoked them.
    assertThat(hub.get("/api/v2/clusters", tokenB).status()).isEqualTo(200);
  }

  @Test
  @Order(1)
  void noListAnOrganizationReadsShowsAnotherOrganizationsObjects() {
    int lists = 0;
    for (Endpoint e : endpoints()) {
      if (!e.method().equals("GET") || e.pattern().contains("{")) {
        continue;
      }
      Response r = hub.get(e.pattern(), tokenA);
      if (r.status() != 200) {
        continue;
      }
      lists++;
      for (String key :
          List.of(
              "cluster",
              "clusterName",
              "member",
              "memberEmail",
              "sa",
              "saName",
              "team",
              "teamName",
              "grant",
              "env",
              "tenant",
              "variable",
              "chart",
              "policy",
              "approvalPolicy",
              "freeze",
              "project",
              "projectName",
              "command",
              "approval",
              "org")) {
        assertThat(r.raw())
            .as("GET " + e.pattern() + " shows B's " + key)
            .doesNotContain(b.get(key));
      }
    }
    assertThat(lists).isGreaterThan(10);
  }

  @Test
  @Order(3)
  void onlyTheInstanceAdminCreatesAndListsOrganizations() {
    Response byA =
        hub.post(
            "/api/v2/orgs",
            tokenA,
            Map.of(
                "slug",
                "org-c-" + suffix(),
                "name",
                "C",
                "owner",
                Map.of("email", "c@x.io", "name", "C")));
    assertThat(byA.status()).isEqualTo(403);
    assertThat(byA.body().get("message").asText()).contains("orgs:write");
    assertThat(hub.get("/api/v2/orgs", tokenA).status()).isEqualTo(403);
    // A reads itself, not B.
    String orgA = hub.get("/api/v2/me", tokenA).body().get("org").get("id").asText();
    assertThat(hub.get("/api/v2/orgs/" + orgA, tokenA).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/orgs/" + b.get("org"), tokenA).status()).isEqualTo(404);

    // The instance admin sees both, with their sizes.
    Response all = hub.get("/api/v2/orgs", OWNER_TOKEN);
    assertThat(all.body().get("items").findValuesAsText("id")).contains(orgA, b.get("org"));
    assertThat(hub.get("/api/v2/me", OWNER_TOKEN).body().get("org").get("operator").asBoolean())
        .isTrue();

    // Slugs are unique and validated; the owner token is shown once and stored as a hash.
    String slug = "org-d-" + suffix();
    JsonNode d = createOrg(slug);
    assertThat(d.get("ownerToken").asText()).matches("ghqp_[0-9a-f]{64}");
    assertThat(
            hub.post(
                    "/api/v2/orgs",
                    OWNER_TOKEN,
                    Map.of(
                        "slug", slug, "name", "D", "owner", Map.of("email", "d@x.io", "name", "D")))
                .status())
        .isEqualTo(409);
    Response bad =
        hub.post(
            "/api/v2/orgs",
            OWNER_TOKEN,
            Map.of("slug", "Not A Slug", "name", "", "owner", Map.of()));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body().get("errors").findValuesAsText("field"))
        .contains("slug", "name", "owner.email", "owner.name");
    // The new organization's owner can act at once, and its policies are there.
    String dToken = d.get("ownerToken").asText();
    assertThat(hub.get("/api/v2/members", dToken).body().get("items").findValuesAsText("email"))
        .containsExactly("owner@" + slug + ".example.com");
    assertThat(hub.get("/api/v2/policies", dToken).body().get("items").findValuesAsText("name"))
        .contains("approval");
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where action = 'org.created' and target_id = ?",
                d.get("org").get("id").asText()))
        .isEqualTo(2);
  }
}

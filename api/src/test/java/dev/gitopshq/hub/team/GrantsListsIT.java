package dev.gitopshq.hub.team;

import static dev.gitopshq.hub.team.GrantFixtures.id;
import static dev.gitopshq.hub.team.GrantFixtures.shape;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The endpoints outside {@code /api/v2/projects/{id}}, {@code /api/v2/clusters/{id}} and {@code
 * /api/v2/commands/{id}} that show or act on a project's or cluster's objects follow the grants
 * too: a member with a grant on project A and the clusters labelled {@code tier=x} sees A's and X's
 * objects in every list, never B's or Y's, and an object of B or Y by id answers as an unknown id.
 * In an organization of its own, so nothing is left in the one other tests share.
 */
class GrantsListsIT {
  static HubTestSupport hub;
  static GrantFixtures org;
  static String s;
  static String projectA;
  static String projectB;
  static String clusterX;
  static String clusterY;
  static String member;
  static String viewer;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
    org = new GrantFixtures(hub, "lists");
    s = UUID.randomUUID().toString().substring(0, 8);
    projectA = org.project("a-" + s);
    projectB = org.project("b-" + s);
    clusterX = org.cluster("x-" + s, Map.of("tier", "x"));
    clusterY = org.cluster("y-" + s, Map.of("tier", "y"));
    String memberId = org.member("member");
    String viewerId = org.member("viewer");
    String team = org.team("a-and-x-" + s, memberId, viewerId);
    org.projectGrant(team, "member", projectA);
    org.clusterGrant(team, "member", Map.of("tier", "x"));
    member = org.token(memberId);
    viewer = org.token(viewerId);
    // The grants reach what they should: the guarded paths already follow them.
    assertThat(hub.get("/api/v2/projects/" + projectA, member).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/projects/" + projectB, member).status()).isEqualTo(404);
    assertThat(hub.get("/api/v2/clusters/" + clusterX, member).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/clusters/" + clusterY, member).status()).isEqualTo(404);
  }

  static List<String> values(Response r, String list, String field) {
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body().get(list).findValuesAsText(field);
  }

  static String freeze(String project, String reason) {
    Map<String, Object> body = new java.util.HashMap<>();
    body.put("startsAt", Instant.now().plus(Duration.ofDays(1)).toString());
    body.put("endsAt", Instant.now().plus(Duration.ofDays(2)).toString());
    body.put("reason", reason);
    if (project != null) {
      body.put("project", project);
    }
    return id(hub.post("/api/v2/freeze-windows", org.owner, body), 201);
  }

  @Test
  void freezeWindowsOfAnUngrantedProjectAreNeitherListedNorFound() {
    String ofA = freeze("a-" + s, "freeze of A");
    String ofB = freeze("b-" + s, "freeze of B");
    String everywhere = freeze(null, "freeze of every project");

    assertThat(values(hub.get("/api/v2/freeze-windows", org.owner), "items", "reason"))
        .containsExactlyInAnyOrder("freeze of A", "freeze of B", "freeze of every project");
    for (String caller : List.of(member, viewer)) {
      assertThat(values(hub.get("/api/v2/freeze-windows", caller), "items", "reason"))
          .containsExactlyInAnyOrder("freeze of A", "freeze of every project");
      assertThat(values(hub.get("/api/v2/freeze-windows?active=false", caller), "items", "id"))
          .containsExactlyInAnyOrder(ofA, everywhere);
      assertThat(hub.get("/api/v2/freeze-windows/" + ofA, caller).status()).isEqualTo(200);
      assertThat(hub.get("/api/v2/freeze-windows/" + everywhere, caller).status()).isEqualTo(200);
      String unknown = UUID.randomUUID().toString();
      assertThat(shape(hub.get("/api/v2/freeze-windows/" + ofB, caller), ofB))
          .startsWith("404")
          .isEqualTo(shape(hub.get("/api/v2/freeze-windows/" + unknown, caller), unknown));
    }
    assertThat(hub.get("/api/v2/freeze-windows/" + ofB, org.owner).status()).isEqualTo(200);
  }

  @Test
  void aSelectorPreviewShowsOnlyTheClustersTheGrantsReach() {
    Map<String, Object> all = Map.of();
    assertThat(
            values(hub.post("/api/v2/clusters/selector-preview", org.owner, all), "clusters", "id"))
        .containsExactlyInAnyOrder(clusterX, clusterY);
    for (String caller : List.of(member, viewer)) {
      Response preview = hub.post("/api/v2/clusters/selector-preview", caller, all);
      assertThat(values(preview, "clusters", "id")).containsExactly(clusterX);
      assertThat(preview.raw()).doesNotContain("y-" + s);
      assertThat(
              values(
                  hub.post(
                      "/api/v2/clusters/selector-preview",
                      caller,
                      Map.of("matchLabels", Map.of("tier", "y"))),
                  "clusters",
                  "id"))
          .isEmpty();
    }
  }

  /** The approval policy in force for each cluster the caller sees, by policy name. */
  static Map<String, List<String>> governs(String caller) {
    Response r = hub.get("/api/v2/approval-policies", caller);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    Map<String, List<String>> out = new java.util.TreeMap<>();
    for (JsonNode p : r.body().get("items")) {
      out.put(p.get("name").asText(), p.get("governs").findValuesAsText("cluster"));
    }
    return out;
  }

  @Test
  void approvalPoliciesShowOnlyTheGovernedClustersTheGrantsReach() {
    for (String cluster : List.of(clusterX, clusterY)) {
      Response bind =
          hub.send(
              "PUT",
              "/api/v2/clusters/" + cluster + "/approval-policy",
              org.owner,
              Map.of("requireApproval", List.of("sync"), "requiredApprovers", 1));
      assertThat(bind.status()).as(bind.raw()).isEqualTo(200);
    }

    assertThat(governs(org.owner))
        .containsEntry("cluster-x-" + s, List.of("x-" + s))
        .containsEntry("cluster-y-" + s, List.of("y-" + s));
    for (String caller : List.of(member, viewer)) {
      Map<String, List<String>> seen = governs(caller);
      assertThat(seen)
          .containsEntry("cluster-x-" + s, List.of("x-" + s))
          .containsEntry("cluster-y-" + s, List.of());
      Response one = hub.get("/api/v2/approval-policies/cluster-y-" + s, caller);
      assertThat(one.status()).as(one.raw()).isEqualTo(200);
      assertThat(one.body().get("governs")).isEmpty();
      assertThat(
              hub.get("/api/v2/approval-policies/cluster-x-" + s, caller)
                  .body()
                  .get("governs")
                  .findValuesAsText("cluster"))
          .containsExactly("x-" + s);
    }
  }

  /** How the hub closes a log WebSocket the caller opens on the cluster: the close code. */
  static int logsClose(String cluster, String token) throws Exception {
    CompletableFuture<Integer> closed = new CompletableFuture<>();
    List<String> texts = new ArrayList<>();
    HttpClient.newHttpClient()
        .newWebSocketBuilder()
        .subprotocols("gitopshq.logs.v1", "bearer." + token)
        .buildAsync(
            URI.create(
                "ws://127.0.0.1:"
                    + hub.httpPort()
                    + "/api/v2/clusters/"
                    + cluster
                    + "/logs/ws?namespace=demo&pod=web-0"),
            new WebSocket.Listener() {
              @Override
              public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                synchronized (texts) {
                  texts.add(data.toString());
                }
                w.request(1);
                return null;
              }

              @Override
              public CompletionStage<?> onClose(WebSocket w, int status, String reason) {
                closed.complete(status);
                return null;
              }
            })
        .get(10, TimeUnit.SECONDS);
    int status = closed.get(30, TimeUnit.SECONDS);
    synchronized (texts) {
      if (!token.equals(org.owner)) {
        // What the member is told names no cluster they do not reach.
        assertThat(String.join("\n", texts)).doesNotContain("y-" + s);
      }
    }
    return status;
  }

  @Test
  void theLogWebSocketOfAnUngrantedClusterAnswersAsAnUnknownCluster() throws Exception {
    // Neither cluster has an agent: the owner's refusal says so (not 404), for both.
    int ownerOnY = logsClose(clusterY, org.owner);
    assertThat(ownerOnY).isNotEqualTo(4404);
    assertThat(logsClose(clusterX, org.owner)).isEqualTo(ownerOnY);
    // The member reaches X as the owner does; Y does not exist for them.
    assertThat(logsClose(clusterX, member)).isEqualTo(ownerOnY);
    assertThat(logsClose(clusterY, member)).isEqualTo(4404);
    assertThat(logsClose(UUID.randomUUID().toString(), member)).isEqualTo(4404);
  }

  @Test
  void theAuditLogAndWorkflowHistoriesStayWithAdmins() {
    // Organization-level on purpose: no grant opens them, so no entry about B or Y can leak.
    for (String caller : List.of(member, viewer)) {
      for (String path :
          List.of(
              "/api/v2/audit",
              "/api/v2/audit?target=" + projectB,
              "/api/v2/audit/verify",
              "/api/v2/workflows/" + UUID.randomUUID() + "/history")) {
        Response r = hub.get(path, caller);
        assertThat(r.status()).as(path + " " + r.raw()).isEqualTo(403);
        assertThat(r.raw()).doesNotContain("b-" + s).doesNotContain("y-" + s);
      }
    }
    assertThat(hub.get("/api/v2/audit?target=" + projectB, org.owner).body().get("items"))
        .isNotEmpty();
  }
}

package dev.gitopshq.cli;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.testkube.TestKube;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's session with {@code gitopshq} against a real hub (PostgreSQL, OPA, Temporal test
 * server): log in, register a cluster, publish a policy (a broken one first), ask for commands that
 * need approval, have another member approve and reject them, watch, and check the audit log.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CliSessionIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static OpaTestServer opa;
  static TestKube kube;
  static Agent agent;
  static HubTestSupport hub;
  static String url;
  static String approverToken;
  static final String CLUSTER = "cli-" + UUID.randomUUID().toString().substring(0, 8);

  @TempDir static Path config;

  @BeforeAll
  static void start() {
    opa = OpaTestServer.startNew();
    kube = TestKube.start().seedDemo();
    hub =
        new HubTestSupport()
            .property("opa.url", opa.url())
            .property("opa.token", opa.token())
            .property("opa.republish-interval", "300ms")
            .start();
    url = "http://127.0.0.1:" + hub.context().getEnvironment().getProperty("local.server.port");
    HubTestSupport.Response m =
        hub.post(
            "/api/v2/members",
            OWNER_TOKEN,
            Map.of(
                "email",
                "approver-" + CLUSTER + "@example.com",
                "name",
                "Approver",
                "role",
                "admin"));
    assertThat(m.status()).as(m.raw()).isEqualTo(201);
    approverToken =
        hub.post(
                "/api/v2/members/" + m.body().get("id").asText() + "/tokens",
                OWNER_TOKEN,
                Map.of("name", "cli"))
            .body()
            .get("token")
            .asText();
  }

  @AfterAll
  static void stop() {
    if (agent != null) {
      agent.close();
    }
    if (kube != null) {
      kube.close();
    }
    if (hub != null) {
      hub.close();
    }
    if (opa != null) {
      opa.close();
    }
  }

  /** The CLI as the owner, with the config file login wrote. */
  static Run cli() {
    return new Run().env("XDG_CONFIG_HOME", config.toString()).env("HOME", config.toString());
  }

  /** The CLI as the approver: GITOPSHQ_TOKEN outranks the saved token. */
  static Run approver() {
    return cli().env("GITOPSHQ_TOKEN", approverToken);
  }

  static JsonNode json(Run.Result r) throws Exception {
    assertThat(r.code()).as(r.toString()).isZero();
    return JSON.readTree(r.out());
  }

  @Test
  @Order(1)
  void loginChecksTheTokenAndSavesItForTheOwnerOnly() throws Exception {
    Run.Result wrong = cli().run("login", "--server", url, "--token", "ghqp_" + "0".repeat(64));
    assertThat(wrong.code()).as(wrong.toString()).isEqualTo(ExitCode.FORBIDDEN);
    Path file = config.resolve("gitopshq").resolve("config.yaml");
    assertThat(file).doesNotExist();

    Run.Result r = cli().stdin(OWNER_TOKEN + "\n").run("login", "--server", url, "--token-stdin");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("Logged in to " + url + " as ").contains("(owner)");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(Files.readString(file)).contains(url).contains(OWNER_TOKEN);

    Run.Result me = cli().run("whoami");
    assertThat(me.out()).containsPattern("Role:\\s+owner");
  }

  @Test
  @Order(2)
  void registeringAClusterPrintsTheInstallCommandOnce() throws Exception {
    Run.Result r =
        cli()
            .run(
                "clusters",
                "register",
                CLUSTER,
                "--environment",
                "production",
                "--provider",
                "kind",
                "--label",
                "tier=production");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("Registered cluster " + CLUSTER)
        .containsPattern("ghqa_reg_[0-9a-f]{64}")
        .contains("helm upgrade --install gitopshq-agent")
        .contains("agent.clusterName=" + CLUSTER);

    // The agent installs with the token the CLI printed, and connects.
    java.util.regex.Matcher token =
        java.util.regex.Pattern.compile("ghqa_reg_[0-9a-f]{64}").matcher(r.out());
    assertThat(token.find()).isTrue();
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(
        AgentConfig.AGENT_TOKEN_PATH,
        Files.createTempDirectory("agent").resolve("identity.json").toString());
    env.put(AgentConfig.REGISTRATION_TOKEN, token.group());
    env.put(AgentConfig.CLUSTER_NAME, CLUSTER);
    env.put(AgentConfig.CAPABILITIES, "observe,kubernetes.restart,kubernetes.scale");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    agent = Agent.start(AgentConfig.fromEnv(env), kube::client);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();

    Run.Result list = cli().run("clusters", "list");
    assertThat(list.code()).isZero();
    assertThat(list.out().lines().findFirst().orElseThrow())
        .startsWith("NAME")
        .contains("STATUS", "ENVIRONMENT");
    assertThat(list.out()).containsPattern(CLUSTER + "\\s+Connected\\s+production\\s+kind");

    JsonNode items =
        json(cli().run("clusters", "list", "-o", "json", "--label", "tier:production"));
    assertThat(items.get("items").findValuesAsText("name")).contains(CLUSTER);
    JsonNode yaml =
        new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
            .readTree(cli().run("clusters", "get", CLUSTER, "-o", "yaml").out());
    assertThat(yaml.get("name").asText()).isEqualTo(CLUSTER);

    Run.Result missing = cli().run("clusters", "get", "no-such-cluster");
    assertThat(missing.code()).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(missing.err()).contains("no cluster named no-such-cluster");
  }

  @Test
  @Order(3)
  void aPolicyThatDoesNotCompileShowsOpasErrorAtItsLineThenAGoodOneIsPublished(@TempDir Path dir)
      throws Exception {
    Path broken = dir.resolve("approval.rego");
    Files.writeString(
        broken,
        "package gitopshq.approval\n\ndecision := {\"outcome\": \"deny\"}\n\nallow if {\n"
            + "\tinput.user ==\n}\n");
    Run.Result r = cli().run("policies", "put", "approval", "-f", broken.toString());
    assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.ERROR);
    assertThat(r.err()).contains(broken + ":7:1: unexpected } token");
    assertThat(r.err()).contains("error: policy does not compile");

    Path good = dir.resolve("good.rego");
    Files.writeString(
        good,
        Files.readString(Path.of("..", "policies", "gitopshq", "approval", "decision.rego"))
            + "\n# Published with the CLI.\n");
    Run.Result ok = cli().run("policies", "put", "approval", "-f", good.toString());
    assertThat(ok.code()).as(ok.toString()).isZero();
    assertThat(ok.out()).containsPattern("Published approval version \\d+\\.");

    Run.Result versions = cli().run("policies", "versions", "approval");
    assertThat(versions.out()).startsWith("VERSION").containsPattern("\\d+\\s+true");
    assertThat(cli().run("policies", "get", "approval").out())
        .contains("# Published with the CLI.");
  }

  @Test
  @Order(4)
  void aCommandNeedingApprovalIsRejectedByAnotherMemberAndWatchEndsWithItsOutcome()
      throws Exception {
    String clusterId = json(cli().run("clusters", "get", CLUSTER, "-o", "json")).get("id").asText();
    HubTestSupport.Response bound =
        hub.send(
            "PUT",
            "/api/v2/clusters/" + clusterId + "/approval-policy",
            OWNER_TOKEN,
            Map.of("requireApproval", List.of("scale"), "requiredApprovers", 1));
    assertThat(bound.status()).as(bound.raw()).isEqualTo(200);
    // The binding is the cluster's own approval policy, attached by name, as the CLI shows it.
    JsonNode ownPolicy =
        json(cli().run("approval-policy", "get", "cluster-" + CLUSTER, "-o", "json"));
    assertThat(ownPolicy.get("requireApproval").toString()).isEqualTo("[\"scale\"]");
    assertThat(ownPolicy.get("governs").get(0).get("cluster").asText()).isEqualTo(CLUSTER);
    assertThat(ownPolicy.get("governs").get(0).get("attachedBy").asText()).isEqualTo("name");

    String rejectedId = scale("reject me");
    String approvedId = scale("approve me");
    awaitStatus(rejectedId, "pending_approval");
    awaitStatus(approvedId, "pending_approval");

    // Four eyes: the requester cannot approve their own command.
    String own = approvalFor(cli(), "approve me");
    assertThat(own).as("the requester's inbox has no item of their own").isNull();

    String rejectId = approvalFor(approver(), "reject me");
    Run.Result rejected = approver().run("approvals", "reject", rejectId, "--comment", "not now");
    assertThat(rejected.code()).as(rejected.toString()).isZero();
    assertThat(rejected.out()).contains("Rejected " + rejectId);
    Run.Result noComment = approver().run("approvals", "reject", rejectId);
    assertThat(noComment.code()).isEqualTo(ExitCode.USAGE);

    String approveId = approvalFor(approver(), "approve me");
    Run.Result approved = approver().run("approvals", "approve", approveId, "--comment", "ok");
    assertThat(approved.code()).as(approved.toString()).isZero();
    Run.Result again = approver().run("approvals", "approve", approveId);
    assertThat(again.code()).as(again.toString()).isIn(ExitCode.CONFLICT, ExitCode.NOT_FOUND);

    Run.Result watch =
        cli().run("commands", "watch", rejectedId, "--interval", "1", "--timeout", "60");
    assertThat(watch.code()).as(watch.toString()).isEqualTo(ExitCode.FAILED);
    assertThat(watch.out().lines().findFirst().orElseThrow()).startsWith("SEQ").contains("STATUS");
    assertThat(watch.out())
        .contains("pending_approval")
        .contains("Command " + rejectedId + " rejected");

    completedCommand = approvedId;
    Run.Result done =
        cli().run("commands", "watch", approvedId, "--interval", "1", "--timeout", "60");
    assertThat(done.code()).as(done.toString()).isZero();
    assertThat(done.out()).contains("executing").contains("Command " + approvedId + " completed");
    assertThat(
            kube.client()
                .apps()
                .deployments()
                .inNamespace("demo")
                .withName("web")
                .get()
                .getSpec()
                .getReplicas())
        .isEqualTo(3);

    Run.Result list = cli().run("commands", "list", CLUSTER, "--status", "rejected");
    assertThat(list.out()).contains(rejectedId).doesNotContain(approvedId);

    Run.Result get = cli().run("commands", "get", rejectedId);
    assertThat(get.out()).containsPattern("Status:\\s+rejected").contains("SEQ");
  }

  @Test
  @Order(5)
  void cancellingYourOwnPendingCommand() throws Exception {
    String id = scale("cancel me");
    awaitStatus(id, "pending_approval");
    Run.Result notMine = approver().run("commands", "cancel", id);
    assertThat(notMine.code()).as(notMine.toString()).isEqualTo(ExitCode.FORBIDDEN);
    Run.Result r = cli().run("commands", "cancel", id);
    assertThat(r.code()).as(r.toString()).isZero();
    Run.Result watch = cli().run("commands", "watch", id, "--interval", "1", "-o", "json");
    assertThat(watch.code()).as(watch.toString()).isEqualTo(ExitCode.FAILED);
    assertThat(JSON.readTree(watch.out()).get("status").asText()).isEqualTo("cancelled");
  }

  @Test
  @Order(6)
  void freezeWindowsAndProjects() throws Exception {
    Run.Result created =
        cli()
            .run(
                "freeze-windows",
                "create",
                "--starts",
                "2030-12-18T00:00:00Z",
                "--ends",
                "2030-12-27T00:00:00Z",
                "--reason",
                "year-end freeze",
                "-o",
                "json");
    String id = json(created).get("id").asText();
    Run.Result list = cli().run("freeze", "list");
    assertThat(list.out())
        .containsPattern(id + "\\s+\\(all\\)\\s+\\(all\\)")
        .contains("year-end freeze");
    Run.Result bad =
        cli().run("freeze-windows", "create", "--starts", "x", "--ends", "y", "--reason", "r");
    assertThat(bad.code()).isEqualTo(ExitCode.ERROR);
    assertThat(bad.err()).contains("startsAt");
    assertThat(cli().run("freeze-windows", "delete", id).code()).isZero();
    assertThat(cli().run("freeze-windows", "delete", id).code()).isEqualTo(ExitCode.NOT_FOUND);

    String project = "shop-" + CLUSTER.substring(4);
    HubTestSupport.Response p =
        hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", project, "description", "Shop"));
    assertThat(p.status()).as(p.raw()).isEqualTo(201);
    Run.Result projects = cli().run("projects", "list");
    assertThat(projects.code()).as(projects.toString()).isZero();
    assertThat(projects.out()).startsWith("NAME").containsPattern(project + "\\s+1\\s+");
    assertThat(cli().run("projects", "get", project).out()).containsPattern("Description:\\s+Shop");

    // Releases by project name: none yet, and the hub's refusals keep their exit codes.
    Run.Result releases = cli().run("releases", "list", project, "-o", "json");
    assertThat(json(releases).get("items")).isEmpty();
    Run.Result create = cli().run("releases", "create", project, "--description", "first");
    assertThat(create.code()).as(create.toString()).isEqualTo(ExitCode.CONFLICT);
    assertThat(create.err()).startsWith("error: ");
    Run.Result promote = cli().run("promote", project, "7");
    assertThat(promote.code()).as(promote.toString()).isEqualTo(ExitCode.NOT_FOUND);
    Run.Result rollback = cli().run("rollback", project, "--to", "7");
    assertThat(rollback.code()).as(rollback.toString()).isEqualTo(ExitCode.ERROR);
    assertThat(rollback.err()).contains("toRelease");
    assertThat(cli().run("releases", "list", "no-such-project").code())
        .isEqualTo(ExitCode.NOT_FOUND);
  }

  /** The scale approved in order 4, completed by the agent. */
  static String completedCommand;

  @Test
  @Order(7)
  void anAuditorDownloadsACommandsEvidenceAndItsHistoryAndVerifiesBothOffline(@TempDir Path dir)
      throws Exception {
    Path evidence = dir.resolve("evidence.json");
    Run.Result get =
        cli().run("evidence", "get", "command", completedCommand, "-f", evidence.toString());
    assertThat(get.code()).as(get.toString()).isZero();
    JsonNode doc = JSON.readTree(evidence.toFile());
    assertThat(doc.at("/evidence/approvals").toString()).contains("ok");
    String workflowId = doc.at("/evidence/workflows/0/workflowId").asText();
    assertThat(workflowId).isNotEmpty();

    // The key saved beforehand; verifying then needs no hub at all.
    JsonNode keys = json(cli().run("evidence", "keys", "-o", "json"));
    Path key = dir.resolve("hub.pem");
    Files.writeString(key, keys.at("/keys/0/publicKeyPem").asText());
    Path history = dir.resolve("history.json");
    assertThat(cli().run("audit", "history", workflowId, "-f", history.toString()).code()).isZero();
    Run offline = new Run().env("XDG_CONFIG_HOME", dir.resolve("none").toString());
    Run.Result verified =
        offline.run(
            "evidence",
            "verify",
            evidence.toString(),
            "--key",
            key.toString(),
            "--history",
            history.toString());
    assertThat(verified.code()).as(verified.toString()).isZero();
    assertThat(verified.out()).contains("ok      signature").contains("Evidence verified.");
    Run.Result replayed = offline.run("audit", "replay", history.toString());
    assertThat(replayed.code()).as(replayed.toString()).isZero();
    assertThat(replayed.out()).contains("deterministic");
    // With the key from the hub instead of a file.
    assertThat(cli().run("evidence", "verify", evidence.toString()).code()).isZero();

    // One changed word: the signature no longer holds.
    Path tampered = dir.resolve("tampered.json");
    Files.writeString(tampered, Files.readString(evidence).replace("approve me", "approve you"));
    Run.Result bad =
        offline.run("evidence", "verify", tampered.toString(), "--key", key.toString());
    assertThat(bad.code()).as(bad.toString()).isEqualTo(ExitCode.FAILED);
    assertThat(bad.out()).contains("FAILED  signature").contains("Evidence NOT verified.");
  }

  @Test
  @Order(7)
  void theAuditLogListsWhatHappenedAndItsChainVerifies() throws Exception {
    Run.Result list = cli().run("audit", "list", "--action", "cluster.created", "--limit", "50");
    assertThat(list.code()).as(list.toString()).isZero();
    assertThat(list.out()).startsWith("SEQ").contains("cluster.created");
    JsonNode json =
        json(cli().run("audit", "list", "--action", "approval.rejected_by", "-o", "json"));
    assertThat(json.get("items")).isNotEmpty();
    assertThat(json.get("items").get(0).get("actor").get("name").asText())
        .isEqualTo("approver-" + CLUSTER + "@example.com");

    Run.Result verify = cli().run("audit", "verify");
    assertThat(verify.code()).as(verify.toString()).isZero();
    assertThat(verify.out()).containsPattern("Audit chain intact: \\d+ entries checked\\.");

    Run.Result forbidden =
        approver().env("GITOPSHQ_TOKEN", "ghqp_" + "1".repeat(64)).run("audit", "verify");
    assertThat(forbidden.code()).isEqualTo(ExitCode.FORBIDDEN);
  }

  @Test
  @Order(8)
  void deletingTheCluster() {
    Run.Result r = cli().run("clusters", "delete", CLUSTER);
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(cli().run("clusters", "get", CLUSTER).code()).isEqualTo(ExitCode.NOT_FOUND);
  }

  static String scale(String reason) throws Exception {
    JsonNode created =
        json(
            cli()
                .run(
                    "commands",
                    "create",
                    CLUSTER,
                    "--type",
                    "scale",
                    "-n",
                    "demo",
                    "--name",
                    "web",
                    "-p",
                    "replicas=3",
                    "--reason",
                    reason,
                    "-o",
                    "json"));
    return created.get("id").asText();
  }

  static void awaitStatus(String id, String status) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    String now = "";
    while (Instant.now().isBefore(deadline)) {
      now = json(cli().run("commands", "get", id, "-o", "json")).get("status").asText();
      if (now.equals(status)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("command " + id + " is " + now + ", not " + status);
  }

  /** The inbox item (approval id) for the command with this reason, or null. */
  static String approvalFor(Run who, String reason) throws Exception {
    for (JsonNode item : json(who.run("approvals", "list", "-o", "json")).get("items")) {
      if (reason.equals(item.path("subject").path("reason").asText())) {
        return item.get("id").asText();
      }
    }
    return null;
  }
}

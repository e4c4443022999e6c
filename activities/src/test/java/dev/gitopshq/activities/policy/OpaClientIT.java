package dev.gitopshq.activities.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link OpaClient} against the real OPA binary, and the shipped policies over their shared samples
 * in {@code policies/testdata/<policy>}: the same files the Rego tests run, so Java and Rego agree
 * on them.
 */
class OpaClientIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final java.util.UUID ORG =
      java.util.UUID.fromString("7c1e0c52-4a3f-4a51-9d2e-1b8f3c1d2e9a");

  /**
   * Where the organization's packages and data live in OPA: the token admits only the hub's calls,
   * so every module here is uploaded under an id the hub manages and evaluated under this root.
   */
  private static final String ROOT = PolicyText.orgRoot(ORG);

  private static String id(String name) {
    return PolicyText.opaPolicyId(ORG, name);
  }

  static OpaTestServer server;
  static OpaClient opa;

  @BeforeAll
  static void start() {
    server = OpaTestServer.startNew();
    opa = server.client();
  }

  @AfterAll
  static void stop() {
    opa.close();
    server.close();
  }

  @Test
  void uploadsAPolicyAndEvaluatesItWithTheVersionItWasPublishedAs() throws IOException {
    String rego =
        """
        package gitopshq.sample

        allow if input.user == "ana"
        """;
    opa.putPolicy(PolicyText.opaPolicyId(ORG, "sample"), PolicyText.forOpa(ORG, rego, 7));

    JsonNode result =
        opa.evaluate(PolicyText.packagePath(ORG, "sample"), JSON.readTree("{\"user\":\"ana\"}"));
    assertThat(result.get("allow").asBoolean()).isTrue();
    assertThat(result.get("gitopshq_policy_version").asInt()).isEqualTo(7);

    // Undefined is not false: the rule has no value for bob, and nothing at all is loaded at
    // gitopshq/nothing-here.
    JsonNode bob =
        opa.evaluate(
            PolicyText.packagePath(ORG, "sample") + "/allow", JSON.readTree("{\"user\":\"bob\"}"));
    assertThat(bob.isMissingNode()).isTrue();
    assertThat(opa.evaluate(ROOT + "/gitopshq/nothing-here", null).isMissingNode()).isTrue();
    assertThat(opa.healthy()).isTrue();
  }

  @Test
  void aModuleThatDoesNotCompileIsRefusedWithOpasRowAndColumnAndTheOldOneStays()
      throws IOException {
    opa.putPolicy(id("broken"), "package " + ROOT + ".gitopshq.broken\n\nok := true\n");
    String bad =
        """
        package gitopshq.broken

        ok := true

        allowed if {
        \tinput.user == missing_var
        }
        """
            .replace("package gitopshq.", "package " + ROOT + ".gitopshq.");

    assertThatThrownBy(() -> opa.putPolicy(id("broken"), bad))
        .isInstanceOfSatisfying(
            PolicyCompileException.class,
            e -> {
              assertThat(e.policyId()).isEqualTo(id("broken"));
              assertThat(e.errors()).isNotEmpty();
              OpaError first = e.errors().get(0);
              assertThat(first.code()).isEqualTo("rego_unsafe_var_error");
              assertThat(first.message()).contains("missing_var");
              assertThat(first.location().file()).isEqualTo(id("broken"));
              assertThat(first.location().row()).isEqualTo(6);
              assertThat(first.location().col()).isPositive();
              assertThat(e.getMessage()).contains(id("broken") + ":6:");
            });

    assertThatThrownBy(
            () -> opa.putPolicy(id("broken"), "package " + ROOT + ".gitopshq.broken\n\nok := {\n"))
        .isInstanceOfSatisfying(
            PolicyCompileException.class,
            e -> assertThat(e.errors().get(0).code()).isEqualTo("rego_parse_error"));

    // OPA kept the version that compiled.
    assertThat(opa.evaluate(ROOT + "/gitopshq/broken/ok", JSON.readTree("{}")).asBoolean())
        .isTrue();
  }

  @Test
  void anEvaluationErrorIsReportedNotMistakenForAnAnswer() {
    opa.putPolicy(
        id("conflict"),
        "package " + ROOT + ".gitopshq.conflict\n\nvalue := x if {\n\tsome x in [1, 2]\n}\n");
    assertThatThrownBy(() -> opa.evaluate(ROOT + "/gitopshq/conflict", null))
        .isInstanceOf(PolicyEvaluationException.class)
        .hasMessageContaining("conflicting");
  }

  @Test
  void theShippedApprovalPolicyGivesEverySharedSampleItsExpectedOutcome() throws IOException {
    Path root = OpaTestServer.repoRoot();
    String rego = Files.readString(root.resolve("policies/gitopshq/approval/decision.rego"));
    PolicyText.requireValid("approval", rego);
    opa.putPolicy(PolicyText.opaPolicyId(ORG, "approval"), PolicyText.forOpa(ORG, rego, 1));

    List<Path> samples;
    try (Stream<Path> dirs = Files.list(root.resolve("policies/testdata/approval"))) {
      samples =
          dirs.map(d -> d.resolve("data.json")).filter(Files::isRegularFile).sorted().toList();
    }
    assertThat(samples).hasSizeGreaterThanOrEqualTo(8);

    List<String> mismatches = new ArrayList<>();
    for (Path file : samples) {
      JsonNode sample = JSON.readTree(file.toFile());
      JsonNode result = opa.evaluate(PolicyText.packagePath(ORG, "approval"), sample.get("input"));
      PolicyDecision d =
          PolicyDecision.of(
              "approval", result.get("gitopshq_policy_version").asInt(), result.get("decision"));
      String expected =
          sample.get("expected").get("outcome").asText()
              + "/"
              + sample.get("expected").get("required_approvers").asInt();
      String got = d.outcome().wireName() + "/" + d.requiredApprovers();
      if (!expected.equals(got)) {
        mismatches.add(file.getParent().getFileName() + ": expected " + expected + ", got " + got);
      }
      assertThat(d.policyVersion()).isEqualTo(1);
      assertThat(d.reasons()).as("reasons of %s", file).isNotEmpty();
    }
    assertThat(mismatches).isEmpty();
  }

  @Test
  void writesADataDocumentThatPoliciesReadAndReplacesItWhole() throws IOException {
    // An organization of its own: the freeze test expects no windows for ORG until it writes them.
    java.util.UUID org = java.util.UUID.randomUUID();
    String root = PolicyText.orgRoot(org);
    opa.putPolicy(
        PolicyText.opaPolicyId(org, "reader"),
        "package "
            + root
            + ".gitopshq.reader\n\nnames := [w.name | some w in data."
            + root
            + ".gitopshq_data.freeze_windows]\n");
    String windows = PolicyText.dataPath(org, "freeze_windows");

    opa.putData(windows, JSON.readTree("[{\"name\":\"a\"},{\"name\":\"b\"}]"));
    assertThat(opa.evaluate(root + "/gitopshq/reader/names", null).toString())
        .isEqualTo("[\"a\",\"b\"]");

    // A second write replaces the document; it does not merge into it.
    opa.putData(windows, JSON.readTree("[{\"name\":\"c\"}]"));
    assertThat(opa.evaluate(root + "/gitopshq/reader/names", null).toString()).isEqualTo("[\"c\"]");
    opa.putData(windows, JSON.readTree("[]"));
    assertThat(opa.evaluate(root + "/gitopshq/reader/names", null).toString()).isEqualTo("[]");
  }

  @Test
  void writingDataWhereAPolicyDefinesRulesIsRefusedNotMistakenForAnOutage() throws IOException {
    OpaTestServer own = OpaTestServer.startNew();
    try (OpaClient client = own.client()) {
      // A module defining the very document the hub writes (OPA refuses the write, 400).
      client.putPolicy(id("owned"), "package " + ROOT + ".gitopshq_data\n\nfreeze_windows := []\n");

      assertThatThrownBy(
              () ->
                  client.putData(PolicyText.dataPath(ORG, "freeze_windows"), JSON.readTree("[{}]")))
          .isInstanceOf(OpaException.class)
          .isNotInstanceOf(OpaUnavailableException.class)
          .hasMessageContaining("400")
          .hasMessageContaining("conflicting rule");
      assertThatThrownBy(() -> client.putData("../escape", JSON.readTree("1")))
          .isInstanceOf(IllegalArgumentException.class);
    } finally {
      own.close();
    }
  }

  @Test
  void theShippedReleasePolicyGivesEverySharedSampleItsExpectedOutcome() throws IOException {
    Path root = OpaTestServer.repoRoot();
    String rego = Files.readString(root.resolve("policies/gitopshq/release/decision.rego"));
    PolicyText.requireValid("release", rego);
    opa.putPolicy(PolicyText.opaPolicyId(ORG, "release"), PolicyText.forOpa(ORG, rego, 1));

    List<String> mismatches = new ArrayList<>();
    List<Path> samples = samples(root.resolve("policies/testdata/release"));
    assertThat(samples).hasSizeGreaterThanOrEqualTo(12);
    for (Path file : samples) {
      JsonNode sample = JSON.readTree(file.toFile());
      JsonNode result = opa.evaluate(PolicyText.packagePath(ORG, "release"), sample.get("input"));
      // The hub reads a release decision exactly as a command's: the same checks apply.
      PolicyDecision d =
          PolicyDecision.of(
              "release", result.get("gitopshq_policy_version").asInt(), result.get("decision"));
      String expected =
          sample.get("expected").get("outcome").asText()
              + "/"
              + sample.get("expected").get("required_approvers").asInt();
      String got = d.outcome().wireName() + "/" + d.requiredApprovers();
      if (!expected.equals(got)) {
        mismatches.add(file.getParent().getFileName() + ": expected " + expected + ", got " + got);
      }
      assertThat(d.reasons()).as("reasons of %s", file).isNotEmpty();
    }
    assertThat(mismatches).isEmpty();
  }

  @Test
  void theShippedFreezePolicyReadsTheWindowsWrittenAsData() throws IOException {
    Path root = OpaTestServer.repoRoot();
    String rego = Files.readString(root.resolve("policies/gitopshq/freeze/decision.rego"));
    PolicyText.requireValid("freeze", rego);
    opa.putPolicy(PolicyText.opaPolicyId(ORG, "freeze"), PolicyText.forOpa(ORG, rego, 1));
    List<Path> samples = samples(root.resolve("policies/testdata/freeze"));
    assertThat(samples).hasSizeGreaterThanOrEqualTo(10);

    // Nothing written yet (as after an OPA restart): no answer, and the caller is told to retry.
    JsonNode first = JSON.readTree(samples.get(0).toFile());
    JsonNode before = opa.evaluate(PolicyText.packagePath(ORG, "freeze"), first.get("input"));
    assertThat(before.get("decision").get("blocked").asBoolean()).isTrue();
    assertThatThrownBy(() -> FreezeService.toCheck(evaluation(before)))
        .isInstanceOf(OpaUnavailableException.class)
        .hasMessageContaining("no freeze windows in OPA");

    List<String> mismatches = new ArrayList<>();
    for (Path file : samples) {
      JsonNode sample = JSON.readTree(file.toFile());
      opa.putData(PolicyText.dataPath(ORG, "freeze_windows"), sample.get("windows"));
      var check =
          FreezeService.toCheck(
              evaluation(opa.evaluate(PolicyText.packagePath(ORG, "freeze"), sample.get("input"))));
      String expected =
          "frozen="
              + sample.get("expected").get("frozen").asBoolean()
              + " blocked="
              + sample.get("expected").get("blocked").asBoolean();
      String got = "frozen=" + check.frozen() + " blocked=" + check.blocked();
      if (!expected.equals(got)) {
        mismatches.add(file.getParent().getFileName() + ": expected " + expected + ", got " + got);
      }
      assertThat(check.policy()).isEqualTo("freeze");
      assertThat(check.policyVersion()).isEqualTo(1);
      assertThat(check.reasons()).as("reasons of %s", file).isNotEmpty();
    }
    assertThat(mismatches).isEmpty();

    // Emptied, the same input is no longer frozen.
    JsonNode blocked =
        JSON.readTree(
            root.resolve("policies/testdata/freeze/production_in_window_blocked/data.json")
                .toFile());
    opa.putData(PolicyText.dataPath(ORG, "freeze_windows"), JSON.readTree("[]"));
    var check =
        FreezeService.toCheck(
            evaluation(opa.evaluate(PolicyText.packagePath(ORG, "freeze"), blocked.get("input"))));
    assertThat(check.frozen()).isFalse();
    assertThat(check.reasons())
        .containsExactly("no freeze window covers production at 2026-12-20T10:00:00Z");
  }

  private static PolicyEvaluation evaluation(JsonNode result) {
    return new PolicyEvaluation(
        "freeze",
        result.get("gitopshq_policy_version").asInt(),
        result.get("gitopshq_policy_sha256").asText(),
        result.get("decision"));
  }

  private static List<Path> samples(Path dir) throws IOException {
    try (Stream<Path> dirs = Files.list(dir)) {
      return dirs.map(d -> d.resolve("data.json")).filter(Files::isRegularFile).sorted().toList();
    }
  }

  @Test
  void anUnreachableOpaIsUnavailableNotAnAnswer() throws IOException {
    OpaTestServer other = OpaTestServer.startNew();
    try (OpaClient client =
        new OpaClient(other.url(), Duration.ofSeconds(2), Duration.ofSeconds(5), other.token())) {
      client.putPolicy(id("sample"), "package " + ROOT + ".gitopshq.sample\n\nallow := true\n");
      other.stop();

      assertThat(client.healthy()).isFalse();
      assertThatThrownBy(() -> client.evaluate(ROOT + "/gitopshq/sample", JSON.readTree("{}")))
          .isInstanceOf(OpaUnavailableException.class)
          .hasMessageContaining("unreachable")
          .hasMessageContaining("127.0.0.1:" + other.port());
      assertThatThrownBy(
              () ->
                  client.putPolicy(
                      id("sample"), "package " + ROOT + ".gitopshq.sample\n\nallow := 1\n"))
          .isInstanceOf(OpaUnavailableException.class);
    } finally {
      other.close();
    }
  }

  @Test
  void opasApiRefusesEveryoneButTheHubsToken() {
    String module =
        "package " + ROOT + ".gitopshq.approval\n\ndecision := {\"outcome\": \"auto_approve\"}\n";
    try (OpaClient anonymous = new OpaClient(server.url());
        OpaClient wrong = new OpaClient(server.url(), "guessed-token")) {
      for (OpaClient c : List.of(anonymous, wrong)) {
        // No replacing a policy behind the hub's back, no reading or writing data, no decisions.
        assertThatThrownBy(() -> c.putPolicy(id("approval"), module))
            .isInstanceOf(OpaException.class)
            .hasMessageContaining("refused the hub's credentials (401)")
            .message()
            .doesNotContain("guessed-token");
        assertThatThrownBy(() -> c.evaluate(ROOT + "/gitopshq/approval", null))
            .hasMessageContaining("401");
        assertThatThrownBy(() -> c.putData("gitopshq_data/freeze_windows", JSON.createArrayNode()))
            .hasMessageContaining("401");
        // Probes still see OPA's health.
        assertThat(c.healthy()).isTrue();
      }
    }
    opa.putPolicy(id("locked"), "package " + ROOT + ".gitopshq.locked\n\nallow := true\n");
    assertThat(opa.evaluate(ROOT + "/gitopshq/locked/allow", null).asBoolean()).isTrue();
  }

  /** OPA's status for a call with the hub's token, sent as-is (not through the client). */
  private static int withHubToken(String method, String path, String body) throws Exception {
    java.net.http.HttpRequest.Builder b =
        java.net.http.HttpRequest.newBuilder(server.url().resolve(path))
            .header("Authorization", "Bearer " + server.token())
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? java.net.http.HttpRequest.BodyPublishers.noBody()
                    : java.net.http.HttpRequest.BodyPublishers.ofString(body));
    try (java.net.http.HttpClient http =
        java.net.http.HttpClient.newBuilder()
            .version(java.net.http.HttpClient.Version.HTTP_1_1)
            .build()) {
      return http.send(b.build(), java.net.http.HttpResponse.BodyHandlers.discarding())
          .statusCode();
    }
  }

  @Test
  void theHubsTokenCannotWriteDataDocumentsOrPlantModulesAndDecisionsStillWork() throws Exception {
    opa.putPolicy(
        id("guarded"),
        PolicyText.forOpa(
            ORG,
            "package gitopshq.guarded\n\ndecision := {\"teams\": data.gitopshq_data.teams}\n",
            1));

    // Whoever holds the hub's token cannot change what decisions read, nor the token OPA admits,
    // nor plant a module under an id the hub does not manage: OPA refuses as for a wrong token.
    assertThat(withHubToken("PUT", "/v1/data/" + ROOT + "/gitopshq_data/teams", "[\"mallory\"]"))
        .isEqualTo(401);
    assertThat(withHubToken("PUT", "/v1/data/gitopshq_opa/token_sha256", "\"0\"")).isEqualTo(401);
    assertThat(withHubToken("PUT", "/v1/data", "{}")).isEqualTo(401);
    assertThat(
            withHubToken(
                "PATCH", "/v1/data", "[{\"op\": \"add\", \"path\": \"/x\", \"value\": 1}]"))
        .isEqualTo(401);
    assertThat(withHubToken("DELETE", "/v1/data/" + ROOT + "/gitopshq_data/freeze_windows", null))
        .isEqualTo(401);
    assertThat(withHubToken("GET", "/v1/data", null)).isEqualTo(401);
    assertThat(withHubToken("POST", "/v1/query", "{\"query\": \"data\"}")).isEqualTo(401);
    assertThat(withHubToken("PUT", "/v1/policies/planted/x", "package planted\n\nx := 1\n"))
        .isEqualTo(401);
    assertThat(opa.listPolicyIds()).doesNotContain("planted/x");
    JsonNode teams = opa.evaluate(PolicyText.packagePath(ORG, "guarded") + "/decision", null);
    assertThat(teams.isMissingNode()).isTrue();

    // The hub's own calls still work: its freeze windows, its modules, its decisions.
    opa.putData(PolicyText.dataPath(ORG, "freeze_windows"), JSON.readTree("[]"));
    assertThat(opa.getPolicy(id("guarded"))).isPresent();
    assertThat(
            opa.evaluate(PolicyText.packagePath(ORG, "guarded") + "/gitopshq_result", null)
                .get("version")
                .asInt())
        .isEqualTo(1);
    opa.deletePolicy(id("guarded"));
    assertThat(opa.getPolicy(id("guarded"))).isEmpty();
  }

  @Test
  void opaRefusesBuiltinsThatReachOutsideItNamingTheBuiltinAndLine() {
    for (String builtin : PolicyText.BANNED_BUILTINS) {
      String call =
          switch (builtin) {
            case "http.send" ->
                "http.send({\"method\": \"get\", \"url\": \"http://127.0.0.1:7233\"})";
            case "net.lookup_ip_addr" -> "net.lookup_ip_addr(\"localhost\")";
            default -> builtin + "()";
          };
      assertThatThrownBy(
              () ->
                  opa.putPolicy(
                      id("reach"), "package " + ROOT + ".gitopshq.reach\n\nleak := " + call + "\n"))
          .isInstanceOfSatisfying(
              PolicyCompileException.class,
              e ->
                  assertThat(e.errors())
                      .anySatisfy(
                          err -> {
                            assertThat(err.message()).isEqualTo("undefined function " + builtin);
                            assertThat(err.location().row()).isEqualTo(3);
                          }));
    }
  }

  @Test
  void readsBackTheModuleTextOpaHolds() {
    String module =
        PolicyText.forOpa(ORG, "package " + ROOT + ".gitopshq.readback\n\nallow := true\n", 4);
    opa.putPolicy(id("readback"), module);
    assertThat(opa.getPolicy(id("readback"))).contains(module);
    assertThat(opa.getPolicy(id("never-uploaded"))).isEmpty();
  }

  @Test
  void speaksHttp2OnOneReusedConnectionAndReconnectsAfterOpaRestarts() throws IOException {
    String module =
        "package " + ROOT + ".gitopshq.h2\n\nimport rego.v1\n\nsize := count(input.items)\n";
    JsonNode input = JSON.readTree("{\"items\": [1, 2, 3]}");
    OpaTestServer own = OpaTestServer.startNew();
    try (OpaClient client = own.client()) {
      client.putPolicy(id("h2"), module);
      for (int i = 0; i < 50; i++) {
        assertThat(client.evaluate(ROOT + "/gitopshq/h2/size", input).asInt()).isEqualTo(3);
      }
      // Cleartext HTTP/2 with prior knowledge (OPA's --h2c), all 51 calls on one connection.
      assertThat(client.protocol()).isEqualTo("h2_prior_knowledge");
      assertThat(client.connectionsOpened()).isEqualTo(1);

      // OPA restarts (empty, on the same port): the reused connection is gone; the next call opens
      // a new one instead of failing on the dead one.
      own.stop();
      own.start();
      client.putPolicy(id("h2"), module);
      assertThat(client.evaluate(ROOT + "/gitopshq/h2/size", input).asInt()).isEqualTo(3);
      assertThat(client.protocol()).isEqualTo("h2_prior_knowledge");
      assertThat(client.connectionsOpened()).isEqualTo(2);
    } finally {
      own.close();
    }
  }

  @Test
  void anOpaWithoutH2cIsUnavailableNamingTheFlagAndHttp1StillWorks() {
    OpaTestServer plain = OpaTestServer.startNewHttp1Only();
    try (OpaClient h2c =
            new OpaClient(
                plain.url(),
                Duration.ofSeconds(2),
                Duration.ofSeconds(3),
                plain.token(),
                OpaClient.Transport.H2C);
        OpaClient http1 = plain.client()) {
      assertThat(h2c.healthy()).isFalse();
      assertThatThrownBy(() -> h2c.evaluate(ROOT + "/gitopshq/anything", null))
          .isInstanceOf(OpaUnavailableException.class)
          .hasMessageContaining("--h2c")
          .hasMessageContaining("GITOPSHQ_OPA_PROTOCOL=http1")
          .message()
          .doesNotContain(plain.token());

      http1.putPolicy(id("plain"), "package " + ROOT + ".gitopshq.plain\n\nallow := true\n");
      assertThat(http1.evaluate(ROOT + "/gitopshq/plain/allow", null).asBoolean()).isTrue();
      assertThat(http1.protocol()).isEqualTo("http/1.1");
    } finally {
      plain.close();
    }
  }

  @Test
  void credentialsInTheUrlNeverAppearInMessages() {
    OpaClient client = new OpaClient(URI.create("http://user:s3cret@127.0.0.1:1"));
    assertThat(client.address()).isEqualTo("http://127.0.0.1:1");
    assertThatThrownBy(() -> client.evaluate(ROOT + "/gitopshq/x", null))
        .isInstanceOf(OpaUnavailableException.class)
        .message()
        .doesNotContain("s3cret");
    client.close();
  }
}

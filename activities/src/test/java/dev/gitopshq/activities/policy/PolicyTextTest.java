package dev.gitopshq.activities.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Names, packages, the reserved version rule and the appended line. */
class PolicyTextTest {

  private static List<String> reasons(String name, String rego) {
    return PolicyText.problems(name, rego).stream()
        .map(p -> p.field() + ": " + p.reason())
        .toList();
  }

  @Test
  void acceptsTheShippedShape() {
    assertThat(reasons("approval", "# METADATA\n# title: x\npackage gitopshq.approval\n\nd := 1\n"))
        .isEmpty();
    assertThat(reasons("my-policy", "package gitopshq[\"my-policy\"]\n")).isEmpty();
    assertThat(reasons("approval", "package gitopshq[\"approval\"]\n")).isEmpty();
  }

  @Test
  void namesThePackageTheNameRequires() {
    assertThat(reasons("approval", "package gitopshq.freeze\n"))
        .containsExactly(
            "rego: must declare 'package gitopshq.approval' (the policy's name decides its"
                + " package), not 'package gitopshq.freeze'");
    assertThat(reasons("approval", "package gitopshq.approval.sub\n")).hasSize(1);
    assertThat(reasons("my-policy", "package gitopshq.my_policy\n"))
        .singleElement()
        .asString()
        .contains("package gitopshq[\"my-policy\"]");
    assertThat(reasons("approval", "d := 1\n"))
        .containsExactly("rego: must declare 'package gitopshq.approval'");
  }

  @Test
  void refusesBadNamesAndEmptyText() {
    assertThat(reasons("Approval", "package gitopshq.approval\n"))
        .singleElement()
        .asString()
        .startsWith("name: must be an RFC 1123 label");
    assertThat(reasons("a".repeat(64), "package x\n")).hasSize(1);
    assertThat(reasons("approval", "  ")).containsExactly("rego: is required");
    assertThat(reasons("approval", null)).containsExactly("rego: is required");
  }

  @Test
  void theVersionRuleIsReserved() {
    assertThat(reasons("approval", "package gitopshq.approval\n\ngitopshq_policy_version := 9\n"))
        .singleElement()
        .asString()
        .contains("must not define gitopshq_policy_version");
    assertThat(
            reasons(
                "approval", "package gitopshq.approval\n\ndefault gitopshq_policy_version := 9\n"))
        .hasSize(1);
    // A longer name that merely starts the same is the author's to use.
    assertThat(reasons("approval", "package gitopshq.approval\n\ngitopshq_policy_versions := 9\n"))
        .isEmpty();
  }

  static final java.util.UUID ORG =
      java.util.UUID.fromString("0b7c4c7e-1d2a-4f3b-8e9d-5a6b7c8d9e0f");
  static final String ROOT = "org_0b7c4c7e1d2a4f3b8e9d5a6b7c8d9e0f";

  @Test
  void appendsTheVersionAndTextHashAfterTheTextSoErrorLocationsStayPut() {
    String sha = PolicyText.sha256("package gitopshq.a\n");
    String constants = "\"version\": 3, \"sha256\": \"" + sha + "\"";
    assertThat(PolicyText.forOpa(ORG, "package gitopshq.a\n", 3))
        .isEqualTo(
            "package "
                + ROOT
                + ".gitopshq.a\ngitopshq_policy_version := 3\ngitopshq_policy_sha256 := \""
                + sha
                + "\"\ngitopshq_result := {"
                + constants
                + ", \"decision\": d} if { d := data."
                + ROOT
                + ".gitopshq.a.decision } else := {"
                + constants
                + "}\n");
    assertThat(PolicyText.forOpa(ORG, "package gitopshq.a", 12))
        .startsWith("package " + ROOT + ".gitopshq.a\ngitopshq_policy_version := 12\n")
        .contains(PolicyText.sha256("package gitopshq.a") + "\"\n");
  }

  @Test
  void aWhatIfDraftLivesInAScratchPackageButReadsTheOrganizationsDocuments() {
    String rego =
        "package gitopshq[\"my-policy\"]\n\n"
            + "windows := data.gitopshq_data.freeze_windows\n"
            + "decision := data.gitopshq.approval.decision\n";

    String placed = PolicyText.forScratch(ORG, "abc", rego);

    assertThat(placed)
        .startsWith("package gitopshq_whatif_abc." + ROOT + ".gitopshq[\"my-policy\"]\n\n")
        .contains("windows := data." + ROOT + ".gitopshq_data.freeze_windows\n")
        .contains("decision := data." + ROOT + ".gitopshq.approval.decision\n")
        .contains("gitopshq_policy_version := 0\n")
        .contains("d := data.gitopshq_whatif_abc." + ROOT + ".gitopshq[\"my-policy\"].decision");
    assertThat(placed.lines().count()).isEqualTo(PolicyText.forOpa(ORG, rego, 0).lines().count());
  }

  @Test
  void placesAModuleInItsOrganizationsNamespaceKeepingEveryLine() {
    String rego =
        "# reads data.gitopshq_data.freeze_windows (a comment stays as written)\n"
            + "package gitopshq[\"my-policy\"]\n\n"
            + "import data.gitopshq.approval as approval\n\n"
            + "note := \"data.gitopshq.x in a string stays\"\n"
            + "windows := data.gitopshq_data.freeze_windows\n"
            + "other := data . gitopshq[\"b-policy\"].decision\n"
            + "field := input.data.gitopshq\n";
    String placed = PolicyText.inNamespace(ORG, rego);
    assertThat(placed.lines().count()).isEqualTo(rego.lines().count());
    assertThat(placed)
        .contains("package " + ROOT + ".gitopshq[\"my-policy\"]")
        .contains("import data." + ROOT + ".gitopshq.approval as approval")
        .contains("windows := data." + ROOT + ".gitopshq_data.freeze_windows")
        .contains("other := data . " + ROOT + ".gitopshq[\"b-policy\"].decision")
        .contains("field := input.data.gitopshq\n")
        .contains("# reads data.gitopshq_data.freeze_windows (a comment")
        .contains("\"data.gitopshq.x in a string stays\"");
    assertThat(PolicyText.problems("my-policy", rego)).isEmpty();
    // Two organizations' modules of one policy never share a package or an id.
    java.util.UUID other = java.util.UUID.randomUUID();
    assertThat(PolicyText.opaPolicyId(ORG, "approval"))
        .isEqualTo("orgs/" + ORG + "/gitopshq/approval")
        .isNotEqualTo(PolicyText.opaPolicyId(other, "approval"));
    assertThat(PolicyText.packagePath(ORG, "approval")).isEqualTo(ROOT + "/gitopshq/approval");
  }

  @Test
  void refusesEveryReferenceToDataOutsideTheOrganizationsDocumentsNamingTheLine() {
    String rego =
        "package gitopshq.approval\n\n"
            + "all := data\n"
            + "peek := data.org_1234.gitopshq.approval\n"
            + "keys := data[\"system\"]\n"
            + "sys := data.system.authz\n"
            + "ok := data.gitopshq_data.freeze_windows\n"
            + "near := data.gitopshqx\n";
    assertThat(reasons("approval", rego))
        .hasSize(5)
        .allMatch(r -> r.contains("refers to data outside the organization's documents"))
        .anyMatch(r -> r.startsWith("rego: line 3:"))
        .anyMatch(r -> r.startsWith("rego: line 4:"))
        .anyMatch(r -> r.startsWith("rego: line 5:"))
        .anyMatch(r -> r.startsWith("rego: line 6:"))
        .anyMatch(r -> r.startsWith("rego: line 8:"));
  }

  @Test
  void codeInsideTemplateStringsIsCheckedAndPlacedLikeAnyOtherCode() {
    String rego =
        "package gitopshq.approval\n\n"
            + "a := $\"peek {data.system.authz} and {http.send({})}\"\n"
            + "b := $\"ok {data.gitopshq_data.freeze_windows}\"\n";
    assertThat(reasons("approval", rego))
        .anyMatch(r -> r.startsWith("rego: line 3:") && r.contains("refers to data outside"))
        .anyMatch(r -> r.startsWith("rego: line 3:") && r.contains("http.send"))
        .hasSize(2);
    assertThat(PolicyText.inNamespace(ORG, rego))
        .contains("$\"ok {data." + ROOT + ".gitopshq_data.freeze_windows}\"");
  }

  @Test
  void theShippedPoliciesReadOnlyTheirOrganizationsDocuments() throws Exception {
    java.nio.file.Path dir = OpaTestServer.repoRoot().resolve("policies/gitopshq");
    for (String name : List.of("approval", "credentials", "freeze", "release")) {
      String rego = java.nio.file.Files.readString(dir.resolve(name).resolve("decision.rego"));
      assertThat(PolicyText.problems(name, rego)).as(name).isEmpty();
    }
  }

  @Test
  void refusesBuiltinsThatReachOutsideOpaNamingTheBuiltinAndTheLine() {
    String rego =
        "package gitopshq.approval\n\n"
            + "# http.send(x) in a comment is fine, and so is \"opa.runtime()\" in a string\n"
            + "note := \"call http.send( later\"\n"
            + "leak := http.send({\"method\": \"get\", \"url\": \"http://127.0.0.1:7233\"})\n"
            + "env := opa.runtime ()\n"
            + "ip := net.lookup_ip_addr(\"hub\")\n"
            + "mine := my.http.send(1)\n";
    assertThat(reasons("approval", rego))
        .containsExactly(
            "rego: line 5: calls the built-in http.send, which reaches outside OPA (the network, DNS or"
                + " OPA's own environment); policies may not use it",
            "rego: line 6: calls the built-in opa.runtime, which reaches outside OPA (the network, DNS or"
                + " OPA's own environment); policies may not use it",
            "rego: line 7: calls the built-in net.lookup_ip_addr, which reaches outside OPA (the network,"
                + " DNS or OPA's own environment); policies may not use it");
    assertThat(
            reasons("approval", "package gitopshq.approval\n\ngitopshq_policy_sha256 := \"x\"\n"))
        .containsExactly(
            "rego: must not define gitopshq_policy_sha256: the hub appends that rule with the version and"
                + " text hash when it publishes");
    assertThat(reasons("approval", "package gitopshq.approval\n\ngitopshq_result := {}\n"))
        .containsExactly(
            "rego: must not define gitopshq_result: the hub appends that rule with the version and"
                + " text hash when it publishes");
  }

  @Test
  void theHubAndItsOpaBuildBanTheSameBuiltins() throws Exception {
    java.nio.file.Path opaList =
        java.nio.file.Path.of(System.getProperty("user.dir"))
            .getParent()
            .resolve("tools/opa/banned-builtins.txt");
    assertThat(java.nio.file.Files.readString(opaList))
        .isEqualTo(
            new String(
                PolicyText.class.getResourceAsStream("banned-builtins.txt").readAllBytes(),
                java.nio.charset.StandardCharsets.UTF_8));
    assertThat(PolicyText.BANNED_BUILTINS)
        .containsExactly("http.send", "net.lookup_ip_addr", "opa.runtime");
  }

  @Test
  void requireValidListsEveryProblem() {
    assertThatThrownBy(
            () ->
                PolicyText.requireValid(
                    "approval", "package gitopshq.x\ngitopshq_policy_version := 1\n"))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.problems()).hasSize(2));
  }

  @Test
  void sha256IsLowercaseHex() {
    assertThat(PolicyText.sha256("abc"))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }
}

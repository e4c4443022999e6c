package dev.gitopshq.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EvidenceVerifierTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ORG = "00000000-0000-0000-0000-000000000001";
  private final KeyPair keys = Ed25519.generate();

  /** Three chained entries; the document shows the first and the last in full. */
  private ObjectNode document(byte[] history) {
    List<AuditChain.Entry> all = new ArrayList<>();
    String prev = AuditChain.GENESIS;
    for (int i = 1; i <= 3; i++) {
      String at = "2026-11-24T10:00:0" + i + "Z";
      String details = "{\"n\":" + i + "}";
      String hash =
          AuditChain.hash(
              prev, ORG, at, "member", "m1", "a@x", "command.x", "command", "c1", details);
      all.add(
          new AuditChain.Entry(
              i * 10,
              ORG,
              at,
              "member",
              "m1",
              "a@x",
              "command.x",
              "command",
              "c1",
              details,
              prev,
              hash));
      prev = hash;
    }
    ObjectNode evidence = JSON.createObjectNode().put("kind", "command");
    evidence
        .putArray("workflows")
        .addObject()
        .put("workflowId", "c1")
        .put("historySha256", Sha256.history(history));
    ObjectNode audit = evidence.putObject("audit");
    audit.set("entries", JSON.valueToTree(List.of(all.get(0), all.get(2))));
    audit.set(
        "links",
        JSON.valueToTree(
            all.stream().map(e -> new AuditChain.Link(e.seq(), e.prevHash(), e.hash())).toList()));
    return EvidenceSigner.sign(evidence, keys.getPrivate(), keys.getPublic());
  }

  private static final byte[] HISTORY =
      "{\"events\":[{\"eventId\":\"1\"}]}".getBytes(StandardCharsets.UTF_8);

  @Test
  void acceptsAnUntouchedDocumentWithItsHistory() throws Exception {
    byte[] pretty = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(document(HISTORY));
    byte[] prettyHistory = "{ \"events\" : [ { \"eventId\" : \"1\" } ] }".getBytes();

    EvidenceVerifier.Result r = EvidenceVerifier.verify(pretty, keys.getPublic(), prettyHistory);

    assertThat(r.checks()).allMatch(EvidenceVerifier.Check::ok);
    assertThat(r.valid()).isTrue();
    assertThat(r.checks())
        .extracting(EvidenceVerifier.Check::name)
        .containsExactly("format", "key", "signature", "audit-chain", "history");
  }

  @Test
  void refusesAChangedDocumentSayingTheSignatureDoesNotMatch() throws Exception {
    ObjectNode doc = document(HISTORY);
    ((ObjectNode) doc.get("evidence")).put("kind", "release");

    EvidenceVerifier.Result r =
        EvidenceVerifier.verify(JSON.writeValueAsBytes(doc), keys.getPublic(), null);

    assertThat(r.valid()).isFalse();
    assertThat(r.firstFailure().name()).isEqualTo("signature");
    assertThat(r.firstFailure().reason()).contains("changed after signing");
  }

  @Test
  void refusesAnEntryWhoseContentNoLongerMatchesItsHash() throws Exception {
    ObjectNode doc = document(HISTORY);
    ObjectNode entry = (ObjectNode) doc.get("evidence").get("audit").get("entries").get(1);
    entry.put("actorName", "mallory@x");
    // Re-signed by the same key, so only the chain can tell.
    doc = EvidenceSigner.sign(doc.get("evidence"), keys.getPrivate(), keys.getPublic());

    EvidenceVerifier.Result r =
        EvidenceVerifier.verify(JSON.writeValueAsBytes(doc), keys.getPublic(), null);

    assertThat(r.firstFailure().name()).isEqualTo("audit-chain");
    assertThat(r.firstFailure().reason()).isEqualTo("entry 30 (command.x) does not match its hash");
  }

  @Test
  void refusesADroppedLink() throws Exception {
    ObjectNode doc = document(HISTORY);
    ((com.fasterxml.jackson.databind.node.ArrayNode) doc.get("evidence").get("audit").get("links"))
        .remove(1);
    doc = EvidenceSigner.sign(doc.get("evidence"), keys.getPrivate(), keys.getPublic());

    EvidenceVerifier.Result r =
        EvidenceVerifier.verify(JSON.writeValueAsBytes(doc), keys.getPublic(), null);

    assertThat(r.firstFailure().reason()).isEqualTo("entry 30 does not link to entry 10 before it");
  }

  @Test
  void refusesAnotherKeyAndAnotherHistory() throws Exception {
    byte[] doc = JSON.writeValueAsBytes(document(HISTORY));
    KeyPair other = Ed25519.generate();

    EvidenceVerifier.Result r =
        EvidenceVerifier.verify(doc, other.getPublic(), "{\"events\":[]}".getBytes());

    assertThat(r.valid()).isFalse();
    assertThat(r.checks())
        .filteredOn(c -> !c.ok())
        .extracting(EvidenceVerifier.Check::name)
        .containsExactly("key", "signature", "history");
  }

  @Test
  void withoutATrustedKeyIsNeverValid() throws Exception {
    EvidenceVerifier.Result r =
        EvidenceVerifier.verify(JSON.writeValueAsBytes(document(HISTORY)), null, null);

    assertThat(r.valid()).isFalse();
    assertThat(r.checks()).filteredOn(c -> c.name().equals("signature")).allMatch(c -> c.ok());
    assertThat(r.firstFailure().name()).isEqualTo("key");
  }

  @Test
  void readsPemAndBase64PublicKeys() {
    assertThat(Ed25519.publicKey(Ed25519.publicKeyPem(keys.getPublic())))
        .isEqualTo(keys.getPublic());
    assertThat(Ed25519.publicKey(Ed25519.publicKeyBase64(keys.getPublic())))
        .isEqualTo(keys.getPublic());
  }

  @Test
  void canonicalFormSortsKeysAndDropsWhitespace() {
    byte[] c =
        CanonicalJson.canonicalize(
            "{ \"b\": [1, 2.50, 1e2], \"a\": \"x\\u0001\\u00e9\", \"\": null }"
                .getBytes(StandardCharsets.UTF_8));
    assertThat(new String(c, StandardCharsets.UTF_8))
        .isEqualTo("{\"\":null,\"a\":\"x\\u0001é\",\"b\":[1,2.5,100]}");
  }
}

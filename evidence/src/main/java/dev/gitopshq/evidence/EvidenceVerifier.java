package dev.gitopshq.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Checks an evidence document offline: its Ed25519 signature, that its audit entries recompute to
 * their hashes and chain, and (optionally) that a workflow history file is the one it names.
 *
 * <p>Each check is reported with a reason a person can act on; the document is valid when every
 * check that ran passed.
 */
public final class EvidenceVerifier {
  /** The check names, as {@link Check#name()} reports them. */
  public static final String FORMAT = "format";

  public static final String SIGNATURE = "signature";
  public static final String KEY = "key";
  public static final String AUDIT_CHAIN = "audit-chain";
  public static final String HISTORY = "history";

  private static final ObjectMapper JSON = new ObjectMapper();

  private EvidenceVerifier() {}

  /**
   * One check's outcome.
   *
   * @param name one of {@link #FORMAT}, {@link #KEY}, {@link #SIGNATURE}, {@link #AUDIT_CHAIN},
   *     {@link #HISTORY}
   * @param ok whether it passed
   * @param reason what was checked and found, in a sentence
   */
  public record Check(String name, boolean ok, String reason) {}

  /**
   * All checks of one document.
   *
   * @param valid true when every check passed
   * @param keyId the key id the document names, or null when it names none
   */
  public record Result(boolean valid, String keyId, List<Check> checks) {
    /** The first failed check, or null. */
    public Check firstFailure() {
      return checks.stream().filter(c -> !c.ok()).findFirst().orElse(null);
    }
  }

  /**
   * Verifies a document.
   *
   * @param document the evidence file's bytes (JSON, any formatting)
   * @param trustedKey the hub's public key (from {@code GET /api/v2/evidence/keys}); when null the
   *     key embedded in the document is used and the {@link #KEY} check fails, because a document
   *     that vouches for its own key proves only that it was not changed after signing
   * @param history a workflow history export ({@code GET /api/v2/workflows/{id}/history}) to match
   *     against the hashes the document names, or null
   */
  public static Result verify(byte[] document, PublicKey trustedKey, byte[] history) {
    List<Check> checks = new ArrayList<>();
    JsonNode doc;
    try {
      doc = JSON.readTree(document);
    } catch (IOException e) {
      checks.add(new Check(FORMAT, false, "the document is not JSON"));
      return new Result(false, null, checks);
    }
    JsonNode evidence = doc == null ? null : doc.get("evidence");
    JsonNode sig = doc == null ? null : doc.get("signature");
    if (evidence == null || !evidence.isObject() || sig == null || !sig.isObject()) {
      checks.add(
          new Check(FORMAT, false, "the document has no \"evidence\" object or no \"signature\""));
      return new Result(false, null, checks);
    }
    String keyId = sig.path("keyId").asText(null);
    checks.add(new Check(FORMAT, true, "an evidence document of kind " + evidence.path("kind")));

    PublicKey key = trustedKey;
    if (trustedKey == null) {
      try {
        key = Ed25519.publicKey(sig.path("publicKey").asText(""));
        checks.add(
            new Check(
                KEY,
                false,
                "no trusted key given: checked against the key in the document itself (id "
                    + keyId
                    + "); pass the hub's public key from /api/v2/evidence/keys"));
      } catch (IllegalArgumentException e) {
        checks.add(new Check(KEY, false, "no trusted key given and the document carries none"));
      }
    } else if (keyId != null && !keyId.equals(Ed25519.keyId(trustedKey))) {
      checks.add(
          new Check(
              KEY,
              false,
              "the document names key "
                  + keyId
                  + " but the given key is "
                  + Ed25519.keyId(trustedKey)));
    } else {
      checks.add(new Check(KEY, true, "key " + Ed25519.keyId(trustedKey)));
    }

    checks.add(signature(evidence, sig, key));
    checks.add(chain(evidence.path("audit")));
    if (history != null) {
      checks.add(history(evidence.path("workflows"), history));
    }
    return new Result(checks.stream().allMatch(Check::ok), keyId, List.copyOf(checks));
  }

  private static Check signature(JsonNode evidence, JsonNode sig, PublicKey key) {
    if (key == null) {
      return new Check(SIGNATURE, false, "no public key to check the signature with");
    }
    if (!Ed25519.ALGORITHM.equals(sig.path("algorithm").asText())) {
      return new Check(
          SIGNATURE, false, "unsupported signature algorithm " + sig.path("algorithm"));
    }
    byte[] value;
    try {
      value = Base64.getDecoder().decode(sig.path("value").asText(""));
    } catch (IllegalArgumentException e) {
      return new Check(SIGNATURE, false, "the signature value is not base64");
    }
    return Ed25519.verify(key, CanonicalJson.bytes(evidence), value)
        ? new Check(SIGNATURE, true, "Ed25519 signature over the canonical evidence is valid")
        : new Check(
            SIGNATURE,
            false,
            "the Ed25519 signature does not match: the evidence was changed after signing, or"
                + " was signed by another key");
  }

  private static Check chain(JsonNode audit) {
    List<AuditChain.Link> links;
    List<AuditChain.Entry> entries;
    try {
      links = List.of(JSON.treeToValue(audit.path("links"), AuditChain.Link[].class));
      entries = List.of(JSON.treeToValue(audit.path("entries"), AuditChain.Entry[].class));
    } catch (IOException | IllegalArgumentException | NullPointerException e) {
      return new Check(AUDIT_CHAIN, false, "audit.links or audit.entries is malformed");
    }
    if (entries.isEmpty()) {
      return new Check(AUDIT_CHAIN, false, "the document holds no audit entries");
    }
    String problem = AuditChain.check(links, entries);
    return problem == null
        ? new Check(
            AUDIT_CHAIN,
            true,
            entries.size()
                + " audit entries recompute to their hashes and chain over "
                + links.size()
                + " links")
        : new Check(AUDIT_CHAIN, false, problem);
  }

  private static Check history(JsonNode workflows, byte[] history) {
    String sha;
    try {
      sha = Sha256.history(history);
    } catch (IllegalArgumentException e) {
      return new Check(HISTORY, false, "the history file is not JSON");
    }
    for (JsonNode w : workflows) {
      if (sha.equals(w.path("historySha256").asText())) {
        return new Check(
            HISTORY, true, "the history is that of workflow " + w.path("workflowId").asText());
      }
    }
    return new Check(
        HISTORY, false, "the history's SHA-256 " + sha + " matches no workflow the document names");
  }
}

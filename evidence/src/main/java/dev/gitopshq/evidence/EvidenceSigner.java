package dev.gitopshq.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Base64;

/**
 * Wraps an evidence body into a signed document: {@code {"evidence": body, "signature":
 * {"algorithm": "Ed25519", "keyId": ..., "publicKey": ..., "value": ...}}}. The signature covers
 * the canonical bytes ({@link CanonicalJson}) of {@code evidence} only.
 */
public final class EvidenceSigner {
  private EvidenceSigner() {}

  public static ObjectNode sign(JsonNode evidence, PrivateKey key, PublicKey publicKey) {
    byte[] sig = Ed25519.sign(key, CanonicalJson.bytes(evidence));
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode signature = f.objectNode();
    signature.put("algorithm", Ed25519.ALGORITHM);
    signature.put("keyId", Ed25519.keyId(publicKey));
    signature.put("publicKey", Ed25519.publicKeyBase64(publicKey));
    signature.put("value", Base64.getEncoder().encodeToString(sig));
    ObjectNode doc = f.objectNode();
    doc.set("evidence", evidence);
    doc.set("signature", signature);
    return doc;
  }
}

/**
 * Evidence documents and their offline verification, shared by the hub (which writes and signs
 * them) and the {@code gitopshq} CLI (which verifies them). Java 21 and Jackson only.
 *
 * <h2>The document</h2>
 *
 * <pre>
 * {
 *   "evidence": {
 *     "kind": "command" | "release", "orgId": ..., "generatedAt": ...,
 *     ... what was asked, by whom, policy decisions, votes, break-glass, commits or result ...,
 *     "workflows": [{"workflowId": ..., "historySha256": ..., "events": n}],
 *     "audit": {
 *       "entries": [{seq, orgId, at, actorType, actorId, actorName, action, targetType, targetId,
 *                    details, prevHash, hash}],      the entries about this subject, in full
 *       "links":   [{seq, prevHash, hash}]           every entry of the organization's chain from
 *     }                                              the first to the last of them, in order
 *   },
 *   "signature": {"algorithm": "Ed25519", "keyId": ..., "publicKey": base64 DER, "value": base64}
 * }
 * </pre>
 *
 * <p>The signature covers {@link dev.gitopshq.evidence.CanonicalJson#bytes} of {@code evidence}.
 * Audit hashes are {@link dev.gitopshq.evidence.AuditChain#hash}: the same code the hub's audit log
 * writes with. A history hash is {@link dev.gitopshq.evidence.Sha256#history}: SHA-256 over the
 * canonical form of Temporal's history JSON.
 *
 * <h2>API for verifiers</h2>
 *
 * <pre>
 * PublicKey key = Ed25519.publicKey(Files.readString(pub));          // PEM or base64 DER, or null
 * EvidenceVerifier.Result r =
 *     EvidenceVerifier.verify(Files.readAllBytes(doc), key, historyBytesOrNull);
 * r.valid();            // every check passed
 * r.checks();           // format, key, signature, audit-chain, history: each with ok and reason
 * r.firstFailure();     // the first failed check, or null
 * </pre>
 *
 * <p>Without a trusted key the document's embedded key is used and the {@code key} check fails, so
 * such a result is never {@code valid}.
 */
package dev.gitopshq.evidence;

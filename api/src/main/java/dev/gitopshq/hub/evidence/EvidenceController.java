package dev.gitopshq.hub.evidence;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.evidence.Ed25519;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Signed evidence documents for commands and releases, and the public keys that verify them. A
 * document holds audit entries, so it needs {@code audit:read} besides reading its subject.
 */
@RestController
public class EvidenceController {
  private final EvidenceService evidence;
  private final EvidenceKeys keys;

  public EvidenceController(EvidenceService evidence, EvidenceKeys keys) {
    this.evidence = evidence;
    this.keys = keys;
  }

  @GetMapping("/api/v2/commands/{id}/evidence")
  EvidenceViews.Signed command(@PathVariable UUID id) {
    Authz.require(Permission.COMMANDS_READ);
    HubPrincipal caller = Authz.require(Permission.AUDIT_READ);
    return evidence.command(caller.orgId(), id);
  }

  @GetMapping("/api/v2/projects/{projectId}/releases/{number}/evidence")
  EvidenceViews.Signed release(@PathVariable UUID projectId, @PathVariable int number) {
    Authz.require(Permission.RELEASES_READ);
    HubPrincipal caller = Authz.require(Permission.AUDIT_READ);
    return evidence.release(caller.orgId(), projectId, number);
  }

  /** The hub's evidence keys, newest (the one that signs) first; one is made on first use. */
  @GetMapping("/api/v2/evidence/keys")
  EvidenceViews.Keys keys() {
    Authz.caller();
    keys.current();
    return new EvidenceViews.Keys(
        keys.list().stream()
            .map(
                k -> {
                  var pub = Ed25519.publicKey(k.publicKey());
                  return new EvidenceViews.Key(
                      k.id(),
                      k.algorithm(),
                      Ed25519.publicKeyBase64(pub),
                      Ed25519.publicKeyPem(pub),
                      k.createdAt());
                })
            .toList());
  }
}

package dev.gitopshq.hub.agentcert;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/agent-ca}: the organization's agent CA (its certificate, to pin or inspect) and
 * whether agents must present a client certificate; {@code /api/v2/clusters/{id}/certificate}: a
 * cluster's client certificates and their revocation.
 */
@RestController
public class AgentCertificateController {
  private final AgentCertificateService service;

  public AgentCertificateController(AgentCertificateService service) {
    this.service = service;
  }

  @GetMapping("/api/v2/agent-ca")
  AgentCertificateService.CaView ca() {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return service.ca(caller.orgId());
  }

  /** {@code PUT /api/v2/agent-ca}: {@code {"requireCertificate": true}}. */
  record Policy(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) Boolean requireCertificate) {}

  @PutMapping("/api/v2/agent-ca")
  AgentCertificateService.CaView setPolicy(@RequestBody(required = false) Policy body) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    if (body.requireCertificate() == null) {
      c.fail("requireCertificate", "is required (true or false)");
    }
    c.throwIfInvalid();
    return service.setRequired(caller, body.requireCertificate());
  }

  @GetMapping("/api/v2/clusters/{id}/certificate")
  AgentCertificateService.ClusterCertificates certificate(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return service.of(caller.orgId(), id);
  }

  record Revoked(List<String> revoked) {}

  /** Revokes the cluster's live certificates: its agent's stream ends at once. */
  @PostMapping("/api/v2/clusters/{id}/certificate/revoke")
  Revoked revoke(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    return new Revoked(service.revoke(caller, id));
  }
}

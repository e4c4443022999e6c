package dev.gitopshq.hub.agentcert;

import dev.gitopshq.activities.agentcert.AgentCertificateRow;
import dev.gitopshq.activities.agentcert.AgentCertificates;
import dev.gitopshq.activities.agentcert.CertificateAuthority;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Reads and changes agents' certificate identity for REST; every change is audited. */
@Service
public class AgentCertificateService {
  /** How many of a cluster's certificates the API lists. */
  static final int LISTED = 20;

  private final AgentCertificates certificates;
  private final ClusterMapper clusters;
  private final AuditLog audit;
  private final Clock clock;

  public AgentCertificateService(
      AgentCertificates certificates, ClusterMapper clusters, AuditLog audit, Clock clock) {
    this.certificates = certificates;
    this.clusters = clusters;
    this.audit = audit;
    this.clock = clock;
  }

  /** The organization's agent CA (created on first use) and its policy. */
  public record CaView(
      String certificatePem,
      String fingerprintSha256,
      Instant notAfter,
      boolean requireCertificate,
      long certificateValiditySeconds) {}

  /** One client certificate of a cluster. */
  public record CertificateView(
      String serial,
      Instant notBefore,
      Instant notAfter,
      String status,
      Instant revokedAt,
      String revokedBy) {
    static CertificateView of(AgentCertificateRow r, Instant now) {
      return new CertificateView(
          r.serial(), r.notBefore(), r.notAfter(), r.status(now), r.revokedAt(), r.revokedBy());
    }
  }

  /**
   * A cluster's certificates: {@code current} is the newest one still valid (null when none),
   * {@code certificates} the latest ones, newest first.
   */
  public record ClusterCertificates(
      CertificateView current, boolean required, List<CertificateView> certificates) {}

  @Transactional
  public CaView ca(UUID orgId) {
    CertificateAuthority ca = certificates.authority(orgId);
    String fingerprint;
    try {
      fingerprint =
          HexFormat.ofDelimiter(":")
              .withUpperCase()
              .formatHex(
                  MessageDigest.getInstance("SHA-256").digest(ca.certificate().getEncoded()));
    } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
    return new CaView(
        ca.certificatePem(),
        fingerprint,
        ca.certificate().getNotAfter().toInstant(),
        certificates.required(orgId),
        certificates.validity().toSeconds());
  }

  @Transactional
  public CaView setRequired(HubPrincipal caller, boolean required) {
    boolean before = certificates.required(caller.orgId());
    certificates.setRequired(caller.orgId(), required);
    if (before != required) {
      audit.record(
          caller.orgId(),
          caller.actor(),
          "org.agent_certificate.updated",
          "organization",
          caller.orgId().toString(),
          Map.of("requireCertificate", Map.of("from", before, "to", required)));
    }
    return ca(caller.orgId());
  }

  @Transactional(readOnly = true)
  public ClusterCertificates of(UUID orgId, UUID clusterId) {
    requireCluster(orgId, clusterId);
    Instant now = clock.instant();
    List<CertificateView> views =
        certificates.list(orgId, clusterId, LISTED).stream()
            .map(r -> CertificateView.of(r, now))
            .toList();
    CertificateView current =
        views.stream().filter(v -> "valid".equals(v.status())).findFirst().orElse(null);
    return new ClusterCertificates(current, certificates.required(orgId), views);
  }

  /** Revokes every live certificate of the cluster; its agent's stream ends at once. */
  @Transactional
  public List<String> revoke(HubPrincipal caller, UUID clusterId) {
    var cluster = requireCluster(caller.orgId(), clusterId);
    List<String> serials = certificates.revokeAll(caller.orgId(), clusterId, caller.name());
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("name", cluster.name());
    d.put("serials", serials);
    audit.record(
        caller.orgId(),
        caller.actor(),
        "cluster.certificate.revoked",
        "cluster",
        clusterId.toString(),
        d);
    return serials;
  }

  private ClusterRow requireCluster(UUID orgId, UUID clusterId) {
    return clusters
        .findById(orgId, clusterId)
        .orElseThrow(() -> ApiException.notFound("cluster " + clusterId));
  }
}

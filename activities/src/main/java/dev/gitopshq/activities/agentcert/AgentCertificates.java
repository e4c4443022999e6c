package dev.gitopshq.activities.agentcert;

import dev.gitopshq.activities.crypto.SecretBox;
import java.math.BigInteger;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.transaction.annotation.Transactional;

/**
 * Issues, checks and revokes agents' client certificates. Each organization's CA is created on
 * first use (by whichever replica gets there first) and never changes, so every replica caches it
 * once read. PostgreSQL is the authority on revocation: a certificate is good only while its row
 * says so.
 */
public class AgentCertificates {
  /** Clock skew allowed between the hub and agents: certificates start this long before issue. */
  static final Duration BACKDATE = Duration.ofMinutes(5);

  private static final SecureRandom RANDOM = new SecureRandom();

  private final AgentCertificateMapper mapper;
  private final SecretBox box;
  private final Clock clock;
  private final Duration validity;
  private final Map<UUID, CertificateAuthority> cas = new ConcurrentHashMap<>();

  /**
   * @param validity how long an issued certificate is valid (at least one minute)
   */
  public AgentCertificates(
      AgentCertificateMapper mapper, SecretBox box, Clock clock, Duration validity) {
    if (validity.compareTo(Duration.ofMinutes(1)) < 0) {
      throw new IllegalArgumentException("the agent certificate validity must be at least 1m");
    }
    this.mapper = mapper;
    this.box = box;
    this.clock = clock;
    this.validity = validity;
  }

  public Duration validity() {
    return validity;
  }

  /** The organization's CA, created now if it has none yet. */
  public CertificateAuthority authority(UUID orgId) {
    CertificateAuthority cached = cas.get(orgId);
    if (cached != null) {
      return cached;
    }
    Optional<CertificateAuthority> stored = stored(orgId);
    if (stored.isEmpty()) {
      CertificateAuthority fresh = CertificateAuthority.create(orgId, clock.instant());
      mapper.insertCa(
          orgId,
          fresh.certificatePem(),
          box.seal(fresh.privateKeyPkcs8(), context(orgId)),
          clock.instant());
      // Another replica may have stored its own first: the stored one is the CA.
      stored = stored(orgId);
    }
    CertificateAuthority ca = stored.orElseThrow();
    cas.put(orgId, ca);
    return ca;
  }

  /** The organization's CA if it has one; never creates it. */
  public Optional<CertificateAuthority> existing(UUID orgId) {
    CertificateAuthority cached = cas.get(orgId);
    if (cached != null) {
      return Optional.of(cached);
    }
    Optional<CertificateAuthority> stored = stored(orgId);
    stored.ifPresent(ca -> cas.put(orgId, ca));
    return stored;
  }

  private Optional<CertificateAuthority> stored(UUID orgId) {
    return mapper
        .findCa(orgId)
        .map(
            s ->
                CertificateAuthority.load(
                    orgId, s.certificatePem(), box.open(s.keySealed(), context(orgId))));
  }

  private static String context(UUID orgId) {
    return "agent-ca:" + orgId;
  }

  /** A certificate just issued, with the CA that signed it. */
  public record Issued(AgentCertificateRow row, X509Certificate certificate, String caPem) {
    public String certificatePem() {
      return CertificateAuthority.pem(certificate);
    }
  }

  /**
   * Signs a client certificate for the cluster's agent and records it. Call only for a cluster the
   * caller authenticated (its registration or agent token).
   */
  @Transactional
  public Issued issue(UUID orgId, UUID clusterId, PublicKey agentKey) {
    CertificateAuthority ca = authority(orgId);
    Instant now = clock.instant();
    BigInteger serial = new BigInteger(127, RANDOM).setBit(126);
    Instant notBefore = now.minus(BACKDATE);
    Instant notAfter = now.plus(validity);
    X509Certificate cert = ca.issue(agentKey, clusterId, serial, notBefore, notAfter);
    AgentCertificateRow row =
        new AgentCertificateRow(
            UUID.randomUUID(),
            orgId,
            clusterId,
            serial.toString(16),
            cert.getNotBefore().toInstant(),
            cert.getNotAfter().toInstant(),
            now,
            null,
            null);
    mapper.insert(row);
    return new Issued(row, cert, ca.certificatePem());
  }

  /** Why a presented certificate is refused, or the certificate that is accepted. */
  public sealed interface Check {
    record Accepted(AgentCertificateRow row) implements Check {}

    /**
     * @param reason for logs and the caller; names no secret
     */
    record Refused(String reason) implements Check {}
  }

  /**
   * Checks a client certificate presented on a stream authenticated as the organization's cluster:
   * it must be signed by the organization's CA, name that cluster, be recorded, unrevoked and
   * within its validity.
   */
  public Check check(UUID orgId, UUID clusterId, X509Certificate cert) {
    Optional<CertificateAuthority.Subject> subject = CertificateAuthority.subjectOf(cert);
    if (subject.isEmpty()
        || !subject.get().orgId().equals(orgId)
        || !subject.get().clusterId().equals(clusterId)) {
      return new Check.Refused("the client certificate names another cluster");
    }
    Optional<CertificateAuthority> ca = existing(orgId);
    if (ca.isEmpty() || !ca.get().signed(cert)) {
      return new Check.Refused("the client certificate was not issued by the organization's CA");
    }
    Instant now = clock.instant();
    if (now.isBefore(cert.getNotBefore().toInstant())
        || !now.isBefore(cert.getNotAfter().toInstant())) {
      return new Check.Refused("the client certificate has expired or is not valid yet");
    }
    Optional<AgentCertificateRow> row =
        mapper.findBySerial(orgId, cert.getSerialNumber().toString(16));
    if (row.isEmpty() || !row.get().clusterId().equals(clusterId)) {
      return new Check.Refused("the client certificate is unknown");
    }
    if (row.get().revokedAt() != null) {
      return new Check.Refused("the client certificate is revoked");
    }
    return new Check.Accepted(row.get());
  }

  /**
   * Revokes every live certificate of the cluster (an admin's revocation, or a new registration
   * replacing the agent's identity); the streams opened with them end at once (V54's trigger).
   *
   * @return the serials revoked
   */
  @Transactional
  public List<String> revokeAll(UUID orgId, UUID clusterId, String by) {
    return mapper.revokeCluster(orgId, clusterId, by, clock.instant());
  }

  /** The cluster's certificates, newest first (at most {@code limit}). */
  public List<AgentCertificateRow> list(UUID orgId, UUID clusterId, int limit) {
    return mapper.list(orgId, clusterId, limit);
  }

  /** Sets whether the organization refuses agent streams without a valid client certificate. */
  @Transactional
  public void setRequired(UUID orgId, boolean required) {
    mapper.setRequireCertificate(orgId, required);
  }

  /** Whether the organization refuses agent streams without a valid client certificate. */
  public boolean required(UUID orgId) {
    return mapper.requiresCertificate(orgId);
  }

  /** Of these certificate ids, the ones still good (unrevoked, unexpired). */
  public List<UUID> stillValid(List<UUID> ids) {
    return ids.isEmpty() ? List.of() : mapper.stillValid(ids, clock.instant());
  }
}

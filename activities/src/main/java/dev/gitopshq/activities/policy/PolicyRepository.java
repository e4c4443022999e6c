package dev.gitopshq.activities.policy;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Versioned policies in PostgreSQL. Reads open their own read-only transaction; the steps of a
 * publish ({@link #lock}, {@link #latestVersion}, {@link #activate}) must run inside the
 * publisher's transaction ({@link PolicyService}), which also holds the OPA upload between them.
 */
public class PolicyRepository {
  private final PolicyMapper mapper;

  public PolicyRepository(PolicyMapper mapper) {
    this.mapper = mapper;
  }

  /** The active version of every policy of the organization, by name. */
  @Transactional(readOnly = true)
  public List<PolicyRow> listActive(UUID orgId) {
    return mapper.listActive(orgId);
  }

  @Transactional(readOnly = true)
  public Optional<PolicyRow> findActive(UUID orgId, String name) {
    return mapper.findActive(orgId, name);
  }

  /** Whether the policy exists (has an active version); reads no Rego text. */
  @Transactional(readOnly = true)
  public boolean hasActive(UUID orgId, String name) {
    return mapper.hasActive(orgId, name);
  }

  @Transactional(readOnly = true)
  public Optional<PolicyRow> findVersion(UUID orgId, String name, int version) {
    return mapper.findVersion(orgId, name, version);
  }

  /** Every version of the policy, newest first; empty when the policy does not exist. */
  @Transactional(readOnly = true)
  public List<PolicyVersionRow> versions(UUID orgId, String name) {
    return mapper.versions(orgId, name);
  }

  /** Whether the organization exists. */
  @Transactional(readOnly = true)
  public boolean orgExists(UUID orgId) {
    return mapper.orgExists(orgId);
  }

  /** The operator organization, if the bootstrap created one. */
  @Transactional(readOnly = true)
  public Optional<UUID> operatorOrg() {
    return mapper.operatorOrg();
  }

  /**
   * Takes the policy's advisory lock until the current transaction ends, so publishes (and the
   * republisher) of one policy never interleave, on this hub or another replica.
   */
  @Transactional(propagation = Propagation.MANDATORY)
  public void lock(UUID orgId, String name) {
    mapper.lock(orgId, name);
  }

  /** The highest version ever stored for the name (active or not), 0 when there is none. */
  @Transactional(propagation = Propagation.MANDATORY)
  public int latestVersion(UUID orgId, String name) {
    return mapper.latestVersion(orgId, name);
  }

  /**
   * Stores a new version as the active one and deactivates the previous one. The previous one is
   * deactivated first: the partial unique index allows one active version per name at any moment.
   */
  @Transactional(propagation = Propagation.MANDATORY)
  public PolicyRow activate(
      UUID orgId, String name, int version, String rego, String createdBy, Instant at) {
    mapper.deactivate(orgId, name);
    PolicyRow row = new PolicyRow(orgId, name, version, rego, createdBy, at, true);
    mapper.insert(row);
    return row;
  }
}

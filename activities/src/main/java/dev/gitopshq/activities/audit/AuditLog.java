package dev.gitopshq.activities.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.gitopshq.evidence.AuditChain;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Appends to and verifies the hash-chained audit log.
 *
 * <p>Each entry's hash is SHA-256 over the previous entry's hash and every field of the entry,
 * length-prefixed so no two different entries can encode alike ({@link AuditChain#hash}, the code
 * offline verifiers use too). The first entry of an organization links to 64 zeros. {@link #record}
 * must run inside the transaction of the change it describes (it joins it), so a change and its
 * audit entry commit or roll back together; the entry joins the chain as the transaction commits.
 */
public class AuditLog {
  /** The link of an organization's first entry. */
  public static final String GENESIS = AuditChain.GENESIS;

  private static final ObjectMapper CANONICAL =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
  private static final int VERIFY_PAGE = 1000;

  private final AuditMapper mapper;
  private final Clock clock;

  public AuditLog(AuditMapper mapper, Clock clock) {
    this.mapper = mapper;
    this.clock = clock;
  }

  /**
   * Appends an entry for a change in the current transaction.
   *
   * <p>The entry joins the chain when the transaction commits ({@code beforeCommit}): the
   * organization's chain lock is taken then, so it is held for the append and the commit only, not
   * while the rest of the transaction runs (a Temporal start, other statements). A transaction that
   * rolls back appends nothing; an append that fails rolls the transaction back. Entries keep the
   * order they were recorded in, and a transaction's organizations are locked in id order.
   *
   * @param details facts an auditor needs (ids, names, old and new values); never a secret
   */
  @Transactional(propagation = Propagation.MANDATORY)
  public void record(
      UUID orgId,
      Actor actor,
      String action,
      String targetType,
      String targetId,
      Map<String, ?> details) {
    Recorded entry =
        new Recorded(orgId, actor, action, targetType, targetId, canonicalJson(details));
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      // Outside Spring's transactions (a plain instance in a test): append at once.
      append(orgId, List.of(entry));
      return;
    }
    Pending pending = (Pending) TransactionSynchronizationManager.getResource(this);
    if (pending == null) {
      pending = new Pending();
      TransactionSynchronizationManager.bindResource(this, pending);
      TransactionSynchronizationManager.registerSynchronization(pending);
    }
    pending.entries.add(entry);
  }

  private record Recorded(
      UUID orgId, Actor actor, String action, String targetType, String targetId, String details) {}

  /** The entries one transaction recorded, appended to their chains just before it commits. */
  private final class Pending implements TransactionSynchronization {
    final List<Recorded> entries = new ArrayList<>();

    @Override
    public void beforeCommit(boolean readOnly) {
      Map<UUID, List<Recorded>> byOrg = new TreeMap<>();
      for (Recorded r : entries) {
        byOrg.computeIfAbsent(r.orgId(), k -> new ArrayList<>()).add(r);
      }
      byOrg.forEach(AuditLog.this::append);
    }

    @Override
    public void afterCompletion(int status) {
      TransactionSynchronizationManager.unbindResourceIfPossible(AuditLog.this);
    }
  }

  private void append(UUID orgId, List<Recorded> entries) {
    mapper.lockChain(orgId);
    String prev = mapper.lastHash(orgId);
    if (prev == null) {
      prev = GENESIS;
    }
    // PostgreSQL keeps microseconds; hash exactly what will be read back.
    Instant at = clock.instant().truncatedTo(ChronoUnit.MICROS);
    for (Recorded r : entries) {
      Actor actor = r.actor();
      String hash =
          hash(
              prev,
              orgId,
              at,
              actor.type(),
              actor.id(),
              actor.name(),
              r.action(),
              r.targetType(),
              r.targetId(),
              r.details());
      mapper.insert(
          new AuditEntry(
              0,
              orgId,
              at,
              actor.type(),
              actor.id(),
              actor.name(),
              r.action(),
              r.targetType(),
              r.targetId(),
              r.details(),
              prev,
              hash));
      prev = hash;
    }
  }

  /** Reads entries, newest first. */
  @Transactional(readOnly = true)
  public List<AuditEntry> search(UUID orgId, AuditQuery query) {
    return mapper.search(orgId, query);
  }

  /** The organization's entries about any of these targets, oldest first. */
  @Transactional(readOnly = true)
  public List<AuditEntry> forTargets(UUID orgId, List<String> targets, int limit) {
    return targets.isEmpty() ? List.of() : mapper.forTargets(orgId, targets, limit);
  }

  /** The links of the organization's chain between two entries, both included. */
  @Transactional(readOnly = true)
  public List<AuditLink> links(UUID orgId, long fromSeq, long toSeq, int limit) {
    return mapper.links(orgId, fromSeq, toSeq, limit);
  }

  /** Recomputes the organization's whole chain and reports the first broken link. */
  @Transactional(readOnly = true)
  public AuditVerification verify(UUID orgId) {
    String expectedPrev = GENESIS;
    long checked = 0;
    long after = 0;
    while (true) {
      List<AuditEntry> page = mapper.chain(orgId, after, VERIFY_PAGE);
      for (AuditEntry e : page) {
        if (!e.prevHash().equals(expectedPrev)) {
          return new AuditVerification(
              false, checked, e.seq(), "entry does not link to the entry before it");
        }
        if (!AuditChain.hash(e.asHashed()).equals(e.hash())) {
          return new AuditVerification(
              false, checked, e.seq(), "entry content does not match its hash");
        }
        expectedPrev = e.hash();
        checked++;
        after = e.seq();
      }
      if (page.size() < VERIFY_PAGE) {
        return new AuditVerification(true, checked, null, null);
      }
    }
  }

  static String canonicalJson(Map<String, ?> details) {
    try {
      return CANONICAL.writeValueAsString(details == null ? Map.of() : details);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("audit details must be JSON-serializable", e);
    }
  }

  static String hash(
      String prev,
      UUID orgId,
      Instant at,
      String actorType,
      String actorId,
      String actorName,
      String action,
      String targetType,
      String targetId,
      String details) {
    return AuditChain.hash(
        prev,
        orgId.toString(),
        at.toString(),
        actorType,
        actorId,
        actorName,
        action,
        targetType,
        targetId,
        details);
  }
}

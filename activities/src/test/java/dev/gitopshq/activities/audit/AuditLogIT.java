package dev.gitopshq.activities.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.gitopshq.activities.store.TestSchema;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The hash-chained audit log on PostgreSQL: one chain per organization, tamper-evident. */
class AuditLogIT {
  static TestSchema schema;
  UUID org;
  AuditLog audit;

  @BeforeAll
  static void database() throws Exception {
    schema = TestSchema.create("audit_log_it", AuditMapper.class);
  }

  @AfterAll
  static void close() {
    if (schema != null) {
      schema.close();
    }
  }

  @BeforeEach
  void org() throws Exception {
    org = newOrg();
    audit = new AuditLog(schema.mapper(AuditMapper.class), Clock.systemUTC());
  }

  static UUID newOrg() throws Exception {
    return schema.newOrg();
  }

  void record(UUID orgId, String action, Map<String, ?> details) {
    schema
        .tx()
        .executeWithoutResult(
            t -> audit.record(orgId, Actor.system("test"), action, "cluster", "c-1", details));
  }

  @Test
  void entriesLinkToTheOneBeforeAndEachOrganizationHasItsOwnChain() throws Exception {
    UUID other = newOrg();
    record(org, "cluster.created", Map.of("name", "prod"));
    record(other, "cluster.created", Map.of("name", "theirs"));
    record(org, "cluster.updated", Map.of("labels", Map.of("tier", "prod")));

    List<AuditEntry> mine =
        audit.search(org, new AuditQuery(null, null, null, null, null, null, 100));
    assertThat(mine).hasSize(2);
    // Newest first: the update links to the create; the first links to the genesis.
    assertThat(mine.get(0).prevHash()).isEqualTo(mine.get(1).hash());
    assertThat(mine.get(1).prevHash()).isEqualTo(AuditLog.GENESIS);
    assertThat(
            audit
                .search(other, new AuditQuery(null, null, null, null, null, null, 100))
                .get(0)
                .prevHash())
        .isEqualTo(AuditLog.GENESIS);
    assertThat(audit.verify(org).valid()).isTrue();
    assertThat(audit.verify(org).entriesChecked()).isEqualTo(2);
  }

  @Test
  void concurrentWritersStillMakeOneUnbrokenChain() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> writes = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        int n = i;
        writes.add(pool.submit(() -> record(org, "command.requested", Map.of("n", n))));
      }
      for (Future<?> w : writes) {
        w.get();
      }
    } finally {
      pool.shutdownNow();
    }
    AuditVerification v = audit.verify(org);
    assertThat(v.valid()).as(v.reason()).isTrue();
    assertThat(v.entriesChecked()).isEqualTo(40);
  }

  @Test
  void aLongTransactionDoesNotHoldUpTheChainAndARolledBackOneAppendsNothing() throws Exception {
    // A request records its entry, then does slow work before it commits (a Temporal start).
    CountDownLatch recorded = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);
    ExecutorService slow = Executors.newSingleThreadExecutor();
    try {
      Future<?> slowRequest =
          slow.submit(
              () ->
                  schema
                      .tx()
                      .executeWithoutResult(
                          t -> {
                            audit.record(
                                org,
                                Actor.system("test"),
                                "cluster.created",
                                "cluster",
                                "slow",
                                Map.of());
                            recorded.countDown();
                            await(commit);
                          }));
      assertThat(recorded.await(10, TimeUnit.SECONDS)).isTrue();

      // Another change of the same organization commits meanwhile, with its entry.
      CompletableFuture<Void> other =
          CompletableFuture.runAsync(() -> record(org, "cluster.updated", Map.of("n", 1)));
      other.get(10, TimeUnit.SECONDS);
      assertThat(audit.verify(org).entriesChecked()).isEqualTo(1);

      commit.countDown();
      slowRequest.get(10, TimeUnit.SECONDS);
    } finally {
      commit.countDown();
      slow.shutdownNow();
    }

    // One transaction, two organizations and three entries; then one that rolls back.
    UUID second = newOrg();
    schema
        .tx()
        .executeWithoutResult(
            t -> {
              audit.record(org, Actor.system("test"), "a", "cluster", "c-1", Map.of());
              audit.record(second, Actor.system("test"), "b", "cluster", "c-2", Map.of());
              audit.record(org, Actor.system("test"), "c", "cluster", "c-1", Map.of());
            });
    schema
        .tx()
        .executeWithoutResult(
            t -> {
              audit.record(org, Actor.system("test"), "lost", "cluster", "c-1", Map.of());
              t.setRollbackOnly();
            });

    AuditVerification v = audit.verify(org);
    assertThat(v.valid()).as(v.reason()).isTrue();
    assertThat(audit.search(org, new AuditQuery(null, null, null, null, null, null, 10)))
        .extracting(AuditEntry::action)
        .containsExactly("c", "a", "cluster.created", "cluster.updated");
    assertThat(audit.verify(second).entriesChecked()).isEqualTo(1);
  }

  static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void anEditedOrDeletedEntryIsFoundByVerify() throws Exception {
    record(org, "member.added", Map.of("email", "a@example.com"));
    record(org, "member.updated", Map.of("role", "admin"));
    record(org, "member.removed", Map.of("email", "a@example.com"));
    // The table refuses updates and deletes; someone with the database's owner rights could still
    // turn that off.
    long second =
        schema.count(
            "select seq from audit_log where org_id = ? and action = 'member.updated'", org);
    schema.exec("alter table audit_log disable trigger user");
    try {
      schema.exec("update audit_log set details = ? where seq = ?", "{\"role\":\"owner\"}", second);
      AuditVerification edited = audit.verify(org);
      assertThat(edited.valid()).isFalse();
      assertThat(edited.firstBrokenSeq()).isEqualTo(second);
      assertThat(edited.reason()).contains("does not match its hash");
    } finally {
      schema.exec("alter table audit_log enable trigger user");
    }
  }

  @Test
  void theLogRefusesUpdatesAndDeletes() throws Exception {
    record(org, "member.added", Map.of("email", "b@example.com"));
    assertThrows(
        java.sql.SQLException.class,
        () -> schema.exec("update audit_log set action = 'x' where org_id = ?", org));
    assertThrows(
        java.sql.SQLException.class,
        () -> schema.exec("delete from audit_log where org_id = ?", org));
    assertThat(audit.verify(org).valid()).isTrue();
  }
}

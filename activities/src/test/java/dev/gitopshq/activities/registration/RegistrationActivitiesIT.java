package dev.gitopshq.activities.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditMapper;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.cluster.ClusterTokenRow;
import dev.gitopshq.activities.store.TestSchema;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.workflows.registration.RegistrationState;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The registration workflow's activities on PostgreSQL: when the token's hour is over, an unused
 * token expires (once, audited), and one that was used or replaced meanwhile reports that instead.
 */
class RegistrationActivitiesIT {
  static TestSchema schema;
  UUID org;
  UUID cluster;
  ClusterTokenMapper tokens;
  RegistrationActivitiesImpl activities;

  @BeforeAll
  static void database() throws Exception {
    schema =
        TestSchema.create(
            "registration_activities_it", ClusterTokenMapper.class, AuditMapper.class);
  }

  @AfterAll
  static void close() {
    if (schema != null) {
      schema.close();
    }
  }

  @BeforeEach
  void cluster() throws Exception {
    org = schema.newOrg();
    cluster = schema.newCluster(org);
    tokens = schema.mapper(ClusterTokenMapper.class);
    activities =
        new RegistrationActivitiesImpl(
            tokens, new AuditLog(schema.mapper(AuditMapper.class), Clock.systemUTC()));
  }

  UUID registrationToken() {
    UUID id = UUID.randomUUID();
    insertToken(id);
    return id;
  }

  /** An active registration token of this cluster, valid for an hour. */
  void insertToken(UUID id) {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    tokens.insert(
        new ClusterTokenRow(
            id,
            org,
            cluster,
            "registration",
            Tokens.sha256Hex(UUID.randomUUID().toString()),
            "active",
            now,
            now.plusSeconds(3600),
            null,
            null));
  }

  RegistrationState expire(UUID token) {
    return schema
        .tx()
        .execute(t -> activities.expireToken(org.toString(), cluster.toString(), token.toString()));
  }

  @Test
  void anUnusedTokenExpiresOnceAndIsAudited() throws Exception {
    UUID token = registrationToken();
    activities.confirmIssued(org.toString(), cluster.toString(), token.toString());

    assertThat(expire(token)).isEqualTo(RegistrationState.EXPIRED);
    assertThat(tokens.findById(org, token).orElseThrow().status()).isEqualTo("expired");
    // A retried activity finds it expired already and audits nothing more.
    assertThat(expire(token)).isEqualTo(RegistrationState.EXPIRED);
    assertThat(
            schema.count(
                "select count(*) from audit_log where org_id = ? and action ="
                    + " 'cluster.registration_token.expired'",
                org))
        .isEqualTo(1);
  }

  @Test
  void aConsumedOrReplacedTokenSaysSoInsteadOfExpiring() throws Exception {
    UUID used = registrationToken();
    schema.exec(
        "update cluster_tokens set status = 'consumed', consumed_at = now() where id = ?", used);
    assertThat(expire(used)).isEqualTo(RegistrationState.REGISTERED);
    UUID replaced = registrationToken();
    schema.exec("update cluster_tokens set status = 'superseded' where id = ?", replaced);
    assertThat(expire(replaced)).isEqualTo(RegistrationState.SUPERSEDED);
    assertThat(tokens.findById(org, used).orElseThrow().status()).isEqualTo("consumed");
  }

  @Test
  void aTokenThatWasNeverCommittedEndsTheWorkflowAtOnce() {
    assertThatThrownBy(
            () ->
                activities.confirmIssued(
                    org.toString(), cluster.toString(), UUID.randomUUID().toString()))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.isNonRetryable()).isTrue();
              assertThat(f.getType()).isEqualTo("RegistrationTokenGone");
            })
        .hasMessageContaining("does not exist");
    // Another organization's token is not this one's either.
    UUID token = registrationToken();
    assertThatThrownBy(
            () ->
                activities.confirmIssued(
                    UUID.randomUUID().toString(), cluster.toString(), token.toString()))
        .isInstanceOf(ApplicationFailure.class);
  }

  /**
   * The workflow starts inside the request that issues the token, so its first activity can run
   * before that request commits: it waits for the commit (the issue lock) instead of failing and
   * retrying with a warning, and a request that rolls back ends it at once.
   */
  @Test
  void confirmationWaitsForTheIssuingRequestsCommit() throws Exception {
    for (boolean commit : new boolean[] {true, false}) {
      UUID id = UUID.randomUUID();
      CountDownLatch issued = new CountDownLatch(1);
      CountDownLatch finish = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        Future<?> request =
            pool.submit(
                () ->
                    schema
                        .tx()
                        .execute(
                            t -> {
                              insertToken(id);
                              tokens.lockIssue(id);
                              issued.countDown();
                              await(finish);
                              if (!commit) {
                                t.setRollbackOnly();
                              }
                              return null;
                            }));
        assertThat(issued.await(10, TimeUnit.SECONDS)).isTrue();
        Future<?> confirm =
            pool.submit(
                () -> activities.confirmIssued(org.toString(), cluster.toString(), id.toString()));
        Thread.sleep(300);
        assertThat(confirm.isDone()).as("waits while the request is open").isFalse();

        finish.countDown();
        request.get(10, TimeUnit.SECONDS);
        if (commit) {
          confirm.get(10, TimeUnit.SECONDS);
        } else {
          assertThatThrownBy(() -> confirm.get(10, TimeUnit.SECONDS))
              .hasCauseInstanceOf(ApplicationFailure.class)
              .hasMessageContaining("was rolled back");
        }
      } finally {
        finish.countDown();
        pool.shutdownNow();
      }
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never let the request finish");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

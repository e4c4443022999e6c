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
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
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
    return id;
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
  void aTokenNotCommittedYetIsNotConfirmedSoTheWorkflowWaits() {
    assertThatThrownBy(
            () ->
                activities.confirmIssued(
                    org.toString(), cluster.toString(), UUID.randomUUID().toString()))
        .hasMessageContaining("is not committed (yet)");
    // Another organization's token is not this one's either.
    UUID token = registrationToken();
    assertThatThrownBy(
            () ->
                activities.confirmIssued(
                    UUID.randomUUID().toString(), cluster.toString(), token.toString()))
        .isInstanceOf(IllegalStateException.class);
  }
}

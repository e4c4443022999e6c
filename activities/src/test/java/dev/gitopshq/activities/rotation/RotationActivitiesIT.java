package dev.gitopshq.activities.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditMapper;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.cluster.ClusterTokenRow;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.notify.NotificationSettingsMapper;
import dev.gitopshq.activities.notify.NotificationTargets;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.store.TestSchema;
import dev.gitopshq.activities.tokens.Tokens;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The token-rotation workflow's activities on PostgreSQL: activating the new token limits the old
 * ones to the grace period, completing revokes them, failing revokes the new one and keeps the old;
 * each step is safe to retry and audited once.
 */
class RotationActivitiesIT {
  static TestSchema schema;
  UUID org;
  UUID cluster;
  ClusterTokenMapper tokens;
  RotationActivitiesImpl activities;

  @BeforeAll
  static void database() throws Exception {
    schema =
        TestSchema.create(
            "rotation_activities_it",
            ClusterMapper.class,
            ClusterTokenMapper.class,
            NotificationSettingsMapper.class,
            AuditMapper.class);
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
    Clock clock = Clock.systemUTC();
    activities =
        new RotationActivitiesImpl(
            schema.mapper(ClusterMapper.class),
            tokens,
            new AuditLog(schema.mapper(AuditMapper.class), clock),
            new WebhookNotifier(
                new NotificationTargets(
                    schema.mapper(NotificationSettingsMapper.class),
                    new SecretBox(SecretBox.newKey()),
                    Optional::empty,
                    null,
                    null,
                    o -> false,
                    clock),
                clock),
            schema.tx(),
            clock);
  }

  UUID agentToken() {
    UUID id = UUID.randomUUID();
    tokens.insert(
        new ClusterTokenRow(
            id,
            org,
            cluster,
            "agent",
            Tokens.sha256Hex(UUID.randomUUID().toString()),
            "active",
            Instant.now().truncatedTo(ChronoUnit.MICROS),
            null,
            null,
            null));
    return id;
  }

  UUID pendingToken(UUID rotation) {
    UUID id = UUID.randomUUID();
    tokens.insertPending(
        id, org, cluster, Tokens.sha256Hex(UUID.randomUUID().toString()), rotation, Instant.now());
    return id;
  }

  long audited(String action) throws Exception {
    return schema.count(
        "select count(*) from audit_log where org_id = ? and action = ?", org, action);
  }

  String status(UUID token) {
    return tokens.findById(org, token).orElseThrow().status();
  }

  @Test
  void activatingLimitsTheOldTokenToTheGraceAndCompletingRevokesIt() throws Exception {
    UUID old = agentToken();
    UUID rotation = UUID.randomUUID();
    UUID fresh = pendingToken(rotation);

    activities.activate(
        org.toString(), cluster.toString(), rotation.toString(), fresh.toString(), 900);
    activities.activate(
        org.toString(), cluster.toString(), rotation.toString(), fresh.toString(), 900);
    assertThat(status(fresh)).isEqualTo("active");
    Instant until = tokens.findById(org, old).orElseThrow().expiresAt();
    assertThat(until).isBetween(Instant.now().plusSeconds(800), Instant.now().plusSeconds(1000));
    assertThat(tokens.stillValid(List.of(old, fresh), Instant.now())).contains(old, fresh);
    assertThat(audited("cluster.token_rotation.activated")).isEqualTo(1);

    List<String> revoked =
        activities.revokeOlder(
            org.toString(), cluster.toString(), rotation.toString(), fresh.toString());
    assertThat(revoked).containsExactly(old.toString());
    assertThat(status(old)).isEqualTo("revoked");
    assertThat(status(fresh)).isEqualTo("active");
    // Again (a retry): nothing more to revoke, nothing more audited.
    assertThat(
            activities.revokeOlder(
                org.toString(), cluster.toString(), rotation.toString(), fresh.toString()))
        .isEmpty();
    assertThat(audited("cluster.token_rotation.completed")).isEqualTo(1);
  }

  @Test
  void aFailedRotationRevokesTheNewTokenAndKeepsTheOld() throws Exception {
    UUID old = agentToken();
    UUID rotation = UUID.randomUUID();
    UUID fresh = pendingToken(rotation);

    activities.abandon(
        org.toString(), cluster.toString(), rotation.toString(), fresh.toString(), "no answer");
    assertThat(status(fresh)).isEqualTo("revoked");
    assertThat(status(old)).isEqualTo("active");
    assertThat(tokens.findById(org, old).orElseThrow().expiresAt()).isNull();
    assertThat(audited("cluster.token_rotation.failed")).isEqualTo(1);
    // Another organization naming this rotation changes nothing of this cluster.
    UUID other = UUID.randomUUID();
    schema.exec(
        "insert into organizations (id, slug, name, created_at) values (?, ?, 'P', now())",
        other,
        "p-" + other.toString().substring(0, 8));
    UUID again = pendingToken(UUID.randomUUID());
    activities.abandon(
        other.toString(), cluster.toString(), rotation.toString(), again.toString(), "x");
    assertThat(status(old)).isEqualTo("active");
    assertThat(status(again)).isEqualTo("pending");
  }
}

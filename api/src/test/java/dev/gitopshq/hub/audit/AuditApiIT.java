package dev.gitopshq.hub.audit;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The hash-chained audit log: filters, cursor, append-only, and tamper detection. */
class AuditApiIT {
  static HubTestSupport hub;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
  }

  @Test
  void everyChangeIsAuditedAndFilterable() {
    String name = "audited-" + UUID.randomUUID().toString().substring(0, 8);
    String id =
        hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name))
            .body()
            .get("cluster")
            .get("id")
            .asText();
    hub.post("/api/v2/clusters/" + id + "/join-token", OWNER_TOKEN, null);

    JsonNode items = hub.get("/api/v2/audit?target=" + id, OWNER_TOKEN).body().get("items");
    assertThat(items.findValuesAsText("action"))
        .containsExactly(
            "cluster.registration_token.issued",
            "cluster.registration_token.issued",
            "cluster.created");
    JsonNode created = items.get(2);
    assertThat(created.get("actor").get("type").asText()).isEqualTo("member");
    assertThat(created.get("actor").get("name").asText()).isEqualTo("admin@gitopshq.local");
    assertThat(created.get("details").get("name").asText()).isEqualTo(name);
    assertThat(items.get(0).get("details").get("superseded")).hasSize(1);

    assertThat(
            hub.get("/api/v2/audit?action=cluster.created&actor=admin@gitopshq.local", OWNER_TOKEN)
                .body()
                .get("items")
                .findValuesAsText("action"))
        .isNotEmpty()
        .containsOnly("cluster.created");
    assertThat(hub.get("/api/v2/audit?from=2999-01-01T00:00:00Z", OWNER_TOKEN).body().get("items"))
        .isEmpty();
    assertThat(hub.get("/api/v2/audit?limit=0", OWNER_TOKEN).status()).isEqualTo(400);
    assertThat(hub.get("/api/v2/audit?from=yesterday", OWNER_TOKEN).status()).isEqualTo(400);
  }

  @Test
  void pagesWithACursorWithoutGapsOrRepeats() {
    for (int i = 0; i < 5; i++) {
      hub.post(
          "/api/v2/clusters",
          OWNER_TOKEN,
          Map.of("name", "page-" + UUID.randomUUID().toString().substring(0, 8)));
    }
    Response first = hub.get("/api/v2/audit?limit=3", OWNER_TOKEN);
    String cursor = first.body().get("nextCursor").asText();
    Response second = hub.get("/api/v2/audit?limit=3&cursor=" + cursor, OWNER_TOKEN);
    long lastOfFirst = first.body().get("items").get(2).get("seq").asLong();
    long firstOfSecond = second.body().get("items").get(0).get("seq").asLong();
    assertThat(firstOfSecond).isLessThan(lastOfFirst);
    assertThat(second.body().get("items").get(0).get("hash").asText())
        .isEqualTo(first.body().get("items").get(2).get("prevHash").asText());
  }

  @Test
  void theLogIsAppendOnlyAndVerificationFindsTheFirstTamperedEntry() throws Exception {
    hub.post(
        "/api/v2/clusters",
        OWNER_TOKEN,
        Map.of("name", "chain-" + UUID.randomUUID().toString().substring(0, 8)));
    Response ok = hub.get("/api/v2/audit/verify", OWNER_TOKEN);
    assertThat(ok.body().get("valid").asBoolean()).isTrue();
    assertThat(ok.body().get("entriesChecked").asLong()).isPositive();

    assertThatThrownBy(() -> HubTestSupport.exec("update audit_log set action = 'x'"))
        .hasMessageContaining("append-only");
    assertThatThrownBy(() -> HubTestSupport.exec("delete from audit_log"))
        .hasMessageContaining("append-only");

    long victim =
        hub.get("/api/v2/audit?action=cluster.created&limit=1", OWNER_TOKEN)
            .body()
            .get("items")
            .get(0)
            .get("seq")
            .asLong();
    // Someone with the table owner's rights goes around the trigger.
    try (Connection c = HubTestSupport.db();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      s.execute("alter table audit_log disable trigger audit_log_append_only");
      s.execute("update audit_log set actor_name = 'someone-else' where seq = " + victim);
      s.execute("alter table audit_log enable trigger audit_log_append_only");
      c.commit();
    }
    Response broken = hub.get("/api/v2/audit/verify", OWNER_TOKEN);
    assertThat(broken.body().get("valid").asBoolean()).isFalse();
    assertThat(broken.body().get("firstBrokenSeq").asLong()).isEqualTo(victim);
    assertThat(broken.body().get("reason").asText()).contains("hash");

    // Put it back so the other tests in this JVM see an intact chain.
    try (Connection c = HubTestSupport.db();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      s.execute("alter table audit_log disable trigger audit_log_append_only");
      s.execute("update audit_log set actor_name = 'admin@gitopshq.local' where seq = " + victim);
      s.execute("alter table audit_log enable trigger audit_log_append_only");
      c.commit();
    }
    assertThat(hub.get("/api/v2/audit/verify", OWNER_TOKEN).body().get("valid").asBoolean())
        .isTrue();
  }
}

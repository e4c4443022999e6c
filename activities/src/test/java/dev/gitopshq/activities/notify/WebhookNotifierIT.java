package dev.gitopshq.activities.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.store.TestSchema;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each organization's webhook, stored in PostgreSQL, against a real HTTP receiver on loopback that
 * checks the signature itself.
 */
class WebhookNotifierIT {
  static TestSchema schema;
  static final SecretBox BOX = new SecretBox(SecretBox.newKey());
  UUID orgA;
  UUID orgB;
  NotificationTargets targets;

  @BeforeAll
  static void database() throws Exception {
    schema = TestSchema.create("webhook_notifier_it", NotificationSettingsMapper.class);
  }

  @AfterAll
  static void close() {
    if (schema != null) {
      schema.close();
    }
  }

  @BeforeEach
  void orgs() throws Exception {
    orgA = UUID.randomUUID();
    orgB = UUID.randomUUID();
    for (UUID o : List.of(orgA, orgB)) {
      schema.exec(
          "insert into organizations (id, slug, name, created_at) values (?, ?, ?, now())",
          o,
          "o-" + o.toString().substring(0, 8),
          "O");
    }
    targets =
        new NotificationTargets(
            schema.mapper(NotificationSettingsMapper.class),
            BOX,
            () -> Optional.of(orgA),
            null,
            null,
            org -> true,
            Clock.systemUTC());
  }

  static final String SECRET = "s3cret-for-the-receiver-only";
  HttpServer server;
  final List<String> bodies = new CopyOnWriteArrayList<>();
  final List<String> verdicts = new CopyOnWriteArrayList<>();
  final AtomicInteger status = new AtomicInteger(204);

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/hook",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          Mac mac = hmac();
          String expected = "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
          String got = exchange.getRequestHeaders().getFirst(WebhookNotifier.SIGNATURE_HEADER);
          verdicts.add(expected.equals(got) ? "valid" : "invalid");
          bodies.add(
              exchange.getRequestHeaders().getFirst(WebhookNotifier.EVENT_HEADER)
                  + " "
                  + exchange.getRequestHeaders().getFirst(WebhookNotifier.DELIVERY_HEADER)
                  + " "
                  + new String(body, StandardCharsets.UTF_8));
          exchange.sendResponseHeaders(status.get(), -1);
          exchange.close();
        });
    server.start();
  }

  static Mac hmac() {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return mac;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
  }

  WebhookNotifier notifier(String secret) {
    targets.save(orgA, url(), secret, List.of(), "test");
    return new WebhookNotifier(targets, Clock.systemUTC());
  }

  @Test
  void sendsSignedJsonEventsTheReceiverCanVerify() throws Exception {
    notifier(SECRET)
        .send(
            orgA.toString(),
            "c1:command.failed",
            "command.failed",
            Map.of("summary", "scale failed"));

    assertThat(verdicts).containsExactly("valid");
    assertThat(bodies.get(0))
        .startsWith("command.failed c1:command.failed ")
        .contains("\"event\":\"command.failed\"")
        .contains("\"summary\":\"scale failed\"");
  }

  @Test
  void aSignatureMadeWithAnotherSecretDoesNotVerify() {
    notifier("another-secret-of-16-chars")
        .send(orgA.toString(), "e2", "approval.requested", Map.of());
    assertThat(verdicts).containsExactly("invalid");
  }

  @Test
  void aReceiverErrorThrowsSoTheActivityRetries() {
    status.set(503);
    WebhookNotifier n = notifier(SECRET);
    assertThatThrownBy(() -> n.send(orgA.toString(), "e3", "agent.disconnected", Map.of()))
        .hasMessageContaining("503")
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void aConfiguredUrlWithoutASecretIsAConfigurationError() {
    assertThatThrownBy(
            () ->
                new NotificationTargets(
                    schema.mapper(NotificationSettingsMapper.class),
                    BOX,
                    () -> Optional.of(orgA),
                    "http://127.0.0.1:1/x",
                    "",
                    org -> true,
                    Clock.systemUTC()))
        .hasMessageContaining("GITOPSHQ_WEBHOOK_SECRET");
  }

  @Test
  void eachOrganizationSendsOnlyToItsOwnWebhookAndOnlyTheEventsItChose() throws Exception {
    WebhookNotifier n = notifier(SECRET);
    // Organization B has no webhook: nothing goes to A's.
    n.send(orgB.toString(), "b1", "command.failed", Map.of("summary", "B's secret failure"));
    assertThat(bodies).isEmpty();
    // A takes only deployment.failed now.
    targets.save(orgA, url(), null, List.of("deployment.failed"), "test");
    n.send(orgA.toString(), "a1", "command.failed", Map.of());
    n.send(orgA.toString(), "a2", "deployment.failed", Map.of());
    assertThat(bodies).hasSize(1);
    assertThat(bodies.get(0)).startsWith("deployment.failed a2 ");
    assertThat(verdicts).containsExactly("valid");
    // The secret is stored sealed, bound to its organization: not as text, and not movable.
    assertThat(
            schema.count(
                "select count(*) from org_notifications where position(convert_to(?, 'UTF8') in"
                    + " secret_sealed) > 0",
                SECRET))
        .isZero();
    schema.exec(
        "insert into org_notifications (org_id, webhook_url, secret_sealed, events, updated_at,"
            + " updated_by) select ?, webhook_url, secret_sealed, events, updated_at, updated_by"
            + " from org_notifications where org_id = ?",
        orgB,
        orgA);
    assertThatThrownBy(() -> targets.forOrg(orgB)).isInstanceOf(SecretBox.SecretBoxException.class);
  }

  @Test
  void theConfiguredWebhookServesOnlyTheBootstrapOrganizationUntilItHasItsOwn() {
    NotificationTargets withFallback =
        new NotificationTargets(
            schema.mapper(NotificationSettingsMapper.class),
            BOX,
            () -> Optional.of(orgA),
            url(),
            SECRET,
            org -> false,
            Clock.systemUTC());
    assertThat(withFallback.forOrg(orgA))
        .get()
        .extracting(t -> t.source())
        .isEqualTo("configuration");
    assertThat(withFallback.forOrg(orgB)).isEmpty();
    withFallback.save(orgA, "https://hooks.example.com/a", "another-secret-of-16", List.of(), "t");
    assertThat(withFallback.forOrg(orgA).orElseThrow().url().toString())
        .isEqualTo("https://hooks.example.com/a");
    assertThat(withFallback.usesFallback(orgA)).isFalse();
  }

  @Test
  void anOrganizationsWebhookMayNotReachPrivateAddressesUnlessAllowed() {
    assertThat(WebhookAddresses.problem("http://127.0.0.1:8080/x", false)).contains("loopback");
    assertThat(WebhookAddresses.problem("http://10.1.2.3/x", false)).contains("private");
    assertThat(WebhookAddresses.problem("http://169.254.169.254/latest", false))
        .contains("link-local");
    assertThat(WebhookAddresses.problem("http://[::1]/x", false)).isNotNull();
    assertThat(WebhookAddresses.problem("http://100.64.0.1/x", false)).isNotNull();
    assertThat(WebhookAddresses.problem("ftp://example.com/x", false)).contains("http");
    assertThat(WebhookAddresses.problem("http://user:pw@example.com/x", false))
        .contains("user info");
    assertThat(WebhookAddresses.problem("http://127.0.0.1:8080/x", true)).isNull();
    assertThat(WebhookAddresses.problem("https://93.184.215.14/hook", false)).isNull();

    // At delivery too: a stored private target of an organization that may not use one is
    // skipped, not sent.
    targets.save(orgB, url(), SECRET, List.of(), "test");
    NotificationTargets strict =
        new NotificationTargets(
            schema.mapper(NotificationSettingsMapper.class),
            BOX,
            Optional::empty,
            null,
            null,
            org -> false,
            Clock.systemUTC());
    new WebhookNotifier(strict, Clock.systemUTC())
        .send(orgB.toString(), "b2", "command.failed", Map.of());
    assertThat(bodies).isEmpty();
  }
}

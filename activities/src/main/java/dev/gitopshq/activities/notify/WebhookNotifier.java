package dev.gitopshq.activities.notify;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers an organization's events to its notification webhook ({@link NotificationTargets}). The
 * body is JSON; the header {@code X-GitOpsHQ-Signature: sha256=<hex>} is the HMAC-SHA256 of the
 * exact body bytes with the organization's secret, so a receiver can check it came from this hub.
 * {@code X-GitOpsHQ-Delivery} carries the event id: retries reuse it, so receivers can drop
 * duplicates. A non-2xx answer or a network error throws, and the calling activity retries. An
 * organization without a webhook, or one that does not take the event, sends nothing.
 */
public class WebhookNotifier {
  private static final Logger log = LoggerFactory.getLogger(WebhookNotifier.class);
  public static final String SIGNATURE_HEADER = "X-GitOpsHQ-Signature";
  public static final String EVENT_HEADER = "X-GitOpsHQ-Event";
  public static final String DELIVERY_HEADER = "X-GitOpsHQ-Delivery";

  private final NotificationTargets targets;
  private final HttpClient http;
  private final ObjectMapper json = new ObjectMapper();
  private final Clock clock;

  public WebhookNotifier(NotificationTargets targets, Clock clock) {
    this.targets = targets;
    this.clock = clock;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  /** Sends one event of an organization. Throws when the receiver did not accept it. */
  public void send(String orgId, String eventId, String event, Map<String, ?> data) {
    NotificationTargets.Target target = targets.forOrg(UUID.fromString(orgId)).orElse(null);
    if (target == null || !target.wants(event)) {
      log.info(
          "notification {} ({}) not sent: organization {} has no webhook for it",
          event,
          eventId,
          orgId);
      return;
    }
    if (!target.allowPrivate()) {
      // Checked again at delivery: the name may resolve elsewhere than when it was saved.
      String problem = WebhookAddresses.problem(target.url().toString(), false);
      if (problem != null) {
        log.warn("notification {} ({}) not sent: the webhook {}", event, eventId, problem);
        return;
      }
    }
    send(target, eventId, event, data);
  }

  /** Sends one event to a webhook. Throws when the receiver did not accept it. */
  public void send(
      NotificationTargets.Target target, String eventId, String event, Map<String, ?> data) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", eventId);
    body.put("event", event);
    body.put("sentAt", clock.instant().toString());
    body.put("data", data);
    byte[] payload;
    try {
      payload = json.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new IllegalArgumentException("event is not serializable", e);
    }
    HttpRequest request =
        HttpRequest.newBuilder(target.url())
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .header(EVENT_HEADER, event)
            .header(DELIVERY_HEADER, eventId)
            .header(SIGNATURE_HEADER, "sha256=" + sign(target.secret(), payload))
            .POST(HttpRequest.BodyPublishers.ofByteArray(payload))
            .build();
    HttpResponse<Void> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      throw new IllegalStateException("webhook unreachable: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while delivering " + eventId, e);
    }
    if (response.statusCode() / 100 != 2) {
      throw new IllegalStateException(
          "webhook answered " + response.statusCode() + " for event " + eventId);
    }
  }

  /** HMAC-SHA256 of the payload, lowercase hex. */
  public static String sign(byte[] secret, byte[] payload) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(payload));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }
}

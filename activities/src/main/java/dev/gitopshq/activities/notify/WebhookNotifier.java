package dev.gitopshq.activities.notify;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers events to the notification webhook (GITOPSHQ_WEBHOOK_URL). The body is JSON; the header
 * {@code X-GitOpsHQ-Signature: sha256=<hex>} is the HMAC-SHA256 of the exact body bytes with
 * GITOPSHQ_WEBHOOK_SECRET, so a receiver can check it came from this hub. {@code
 * X-GitOpsHQ-Delivery} carries the event id: retries reuse it, so receivers can drop duplicates. A
 * non-2xx answer or a network error throws, and the calling activity retries.
 */
public class WebhookNotifier {
  private static final Logger log = LoggerFactory.getLogger(WebhookNotifier.class);
  public static final String SIGNATURE_HEADER = "X-GitOpsHQ-Signature";
  public static final String EVENT_HEADER = "X-GitOpsHQ-Event";
  public static final String DELIVERY_HEADER = "X-GitOpsHQ-Delivery";

  private final URI url;
  private final byte[] secret;
  private final HttpClient http;
  private final ObjectMapper json = new ObjectMapper();
  private final Clock clock;

  /**
   * @param url where events go; null or blank disables delivery (events are only logged)
   * @param secret the HMAC key; required when a URL is set
   */
  public WebhookNotifier(String url, String secret, Clock clock) {
    this.url = url == null || url.isBlank() ? null : URI.create(url);
    if (this.url != null && (secret == null || secret.length() < 16)) {
      throw new IllegalArgumentException(
          "GITOPSHQ_WEBHOOK_SECRET must be set (16+ characters) when GITOPSHQ_WEBHOOK_URL is");
    }
    this.secret = secret == null ? new byte[0] : secret.getBytes(StandardCharsets.UTF_8);
    this.clock = clock;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  public boolean enabled() {
    return url != null;
  }

  /** Sends one event. Throws when the receiver did not accept it. */
  public void send(String eventId, String event, Map<String, ?> data) {
    if (url == null) {
      log.info("notification {} ({}) not sent: no webhook configured", event, eventId);
      return;
    }
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
        HttpRequest.newBuilder(url)
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .header(EVENT_HEADER, event)
            .header(DELIVERY_HEADER, eventId)
            .header(SIGNATURE_HEADER, "sha256=" + sign(payload))
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
  public String sign(byte[] payload) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(payload));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }
}

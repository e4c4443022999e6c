package dev.gitopshq.hub.delivery.image;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.WebhookSecretRow;
import dev.gitopshq.activities.delivery.WorkloadRow;
import dev.gitopshq.hub.delivery.Author;
import dev.gitopshq.hub.delivery.DeliveryChecks;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.project.ProjectService;
import dev.gitopshq.hub.delivery.project.ProjectWorkloads;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.stereotype.Service;

/**
 * {@code POST /api/v2/webhooks/image-update}: a CI pipeline sets a workload's image tag. The caller
 * proves it holds the project's webhook secret and that the request is fresh: {@code
 * X-GitOpsHQ-Timestamp} (Unix seconds), {@code X-GitOpsHQ-Delivery} (an id of its own, 1-128 of
 * {@code [A-Za-z0-9._-]}) and {@code X-GitOpsHQ-Signature: sha256=<hex HMAC-SHA256 of
 * "<timestamp>.<delivery>.<raw body>">}. An unknown project, a project without a secret, a missing
 * or wrong signature and a timestamp outside the tolerance all get the same 401, so the endpoint
 * tells a stranger nothing; a delivery id the project already received (a replay) is 409.
 */
@Service
public class ImageUpdateWebhook {
  public static final String SIGNATURE_HEADER = ProjectService.WEBHOOK_SIGNATURE_HEADER;
  public static final String TIMESTAMP_HEADER = "X-GitOpsHQ-Timestamp";
  public static final String DELIVERY_HEADER = "X-GitOpsHQ-Delivery";

  /** How far a signed timestamp may be from the hub's clock, either way. */
  public static final Duration TOLERANCE = Duration.ofMinutes(5);

  private static final Pattern DELIVERY_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");
  private static final String PREFIX = "sha256=";

  /** Strict: an unknown field is refused, as everywhere in the API. */
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final ProjectMapper projects;
  private final SecretBox secrets;
  private final ProjectWorkloads config;
  private final Clock clock;

  public ImageUpdateWebhook(
      ProjectMapper projects, SecretBox secrets, ProjectWorkloads config, Clock clock) {
    this.projects = projects;
    this.secrets = secrets;
    this.config = config;
    this.clock = clock;
  }

  /**
   * The body.
   *
   * @param project the project's name
   * @param org the organization's slug; optional, never needed to authenticate
   */
  record ImageUpdate(String project, String workload, String tag, String org) {}

  /**
   * Verifies the signature and the timestamp, refuses a delivery id seen before, then sets the tag
   * through the change pipeline.
   */
  public Applied<WorkloadRow> handle(
      byte[] body, String signature, String timestamp, String delivery) {
    Instant now = clock.instant();
    Long seconds = parseTimestamp(timestamp);
    if (seconds == null
        || delivery == null
        || !DELIVERY_ID.matcher(delivery).matches()
        || Math.abs(now.getEpochSecond() - seconds) > TOLERANCE.toSeconds()) {
      throw unauthorized();
    }
    ImageUpdate req;
    try {
      req = JSON.readValue(body, ImageUpdate.class);
    } catch (IOException e) {
      throw unauthorized();
    }
    if (req == null || req.project() == null || signature == null) {
      throw unauthorized();
    }
    byte[] presented = parseSignature(signature);
    WebhookSecretRow project =
        authenticate(req.project(), signedContent(seconds, delivery, body), presented);

    Checks c = new Checks();
    c.dnsLabel("workload", req.workload());
    if (req.tag() == null || !DeliveryChecks.IMAGE_TAG.matcher(req.tag()).matches()) {
      c.fail("tag", "must be an image tag: [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
    }
    c.throwIfInvalid();
    // Signed and fresh: accepted once per delivery id. A delivery older than the window cannot
    // pass the timestamp check, so its row is no longer needed.
    projects.forgetDeliveries(
        project.orgId(), project.projectId(), now.minus(TOLERANCE.multipliedBy(2)));
    if (projects.recordDelivery(project.orgId(), project.projectId(), delivery, now) == 0) {
      throw new ApiException(
          new ApiError(409, "conflict", "delivery " + delivery + " was already received", null));
    }
    return config.setImageTag(
        project.orgId(), project.projectId(), req.workload(), req.tag(), Author.WEBHOOK);
  }

  /** The project whose secret signed the body; every candidate of the name is tried. */
  private WebhookSecretRow authenticate(String name, byte[] body, byte[] presented) {
    if (presented == null) {
      throw unauthorized();
    }
    List<WebhookSecretRow> candidates = projects.webhookSecretsByName(name);
    WebhookSecretRow match = null;
    for (WebhookSecretRow p : candidates) {
      if (p.webhookSecret() == null) {
        continue;
      }
      byte[] secret;
      try {
        secret = secrets.open(p.webhookSecret(), ProjectService.secretContext(p.projectId()));
      } catch (SecretBox.SecretBoxException e) {
        continue;
      }
      if (MessageDigest.isEqual(hmac(secret, body), presented) && match == null) {
        match = p;
      }
    }
    if (match == null) {
      throw unauthorized();
    }
    return match;
  }

  /** The one answer for every request that does not prove the secret. */
  private static ApiException unauthorized() {
    return new ApiException(
        new ApiError(
            401, "unauthorized", "a valid " + SIGNATURE_HEADER + " signature is required", null));
  }

  private static byte[] parseSignature(String header) {
    String h = header.strip();
    if (!h.toLowerCase(Locale.ROOT).startsWith(PREFIX) || h.length() != PREFIX.length() + 64) {
      return null;
    }
    try {
      return HexFormat.of().parseHex(h.substring(PREFIX.length()).toLowerCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * HMAC-SHA256 of the body under the secret (the hex text of the secret, as shown to the user).
   */
  static byte[] hmac(byte[] secret, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return mac.doFinal(body);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }

  /** What the signature covers: {@code "<timestamp>.<delivery>."} and then the raw body. */
  static byte[] signedContent(long timestamp, String delivery, byte[] body) {
    byte[] head = (timestamp + "." + delivery + ".").getBytes(StandardCharsets.US_ASCII);
    byte[] all = Arrays.copyOf(head, head.length + body.length);
    System.arraycopy(body, 0, all, head.length, body.length);
    return all;
  }

  private static Long parseTimestamp(String header) {
    if (header == null || !header.strip().matches("[0-9]{1,12}")) {
      return null;
    }
    return Long.parseLong(header.strip());
  }

  /** The signature header's value a sender computes (tests and the documentation's example). */
  public static String signature(String secret, long timestamp, String delivery, byte[] body) {
    return PREFIX
        + HexFormat.of()
            .formatHex(
                hmac(
                    secret.getBytes(StandardCharsets.US_ASCII),
                    signedContent(timestamp, delivery, body)));
  }
}

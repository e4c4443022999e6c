package dev.gitopshq.activities.notify;

import dev.gitopshq.activities.crypto.SecretBox;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Each organization's notification webhook: its own URL, secret and events, stored in {@code
 * org_notifications} with the secret sealed by the hub's key. One organization (the bootstrap one)
 * may also have a fallback from the hub's configuration (GITOPSHQ_WEBHOOK_URL and
 * GITOPSHQ_WEBHOOK_SECRET), used while it has no settings of its own; no other organization ever
 * sends to it.
 */
public class NotificationTargets {
  /** Every event the hub sends, as receivers see it in {@code X-GitOpsHQ-Event}. */
  public static final List<String> EVENTS =
      List.of(
          "approval.requested",
          "break_glass.used",
          "command.failed",
          "deployment.failed",
          "agent.disconnected",
          "token_rotation.failed",
          "notification.test");

  /** The smallest HMAC secret accepted, in characters. */
  public static final int MIN_SECRET = 16;

  /**
   * Where one organization's events go.
   *
   * @param events the events to send; empty means all
   */
  public record Target(
      URI url, byte[] secret, List<String> events, String source, boolean allowPrivate) {
    public boolean wants(String event) {
      return events.isEmpty() || events.contains(event) || "notification.test".equals(event);
    }

    @Override
    public String toString() {
      return "Target[url=" + url + ", events=" + events + ", source=" + source + "]";
    }
  }

  private final NotificationSettingsMapper settings;
  private final SecretBox box;
  private final Supplier<Optional<UUID>> fallbackOrg;
  private final Target fallback;
  private final Clock clock;
  private final Predicate<UUID> allowPrivate;

  /**
   * @param fallbackOrg the organization the configured webhook belongs to (looked up when needed:
   *     the bootstrap creates it after the hub's beans)
   * @param fallbackUrl the configured webhook (GITOPSHQ_WEBHOOK_URL); null or blank for none
   * @param fallbackSecret its secret (GITOPSHQ_WEBHOOK_SECRET); required with a URL
   * @param allowPrivate whether an organization's webhook may point at loopback or private
   *     addresses ({@link WebhookAddresses})
   */
  public NotificationTargets(
      NotificationSettingsMapper settings,
      SecretBox box,
      Supplier<Optional<UUID>> fallbackOrg,
      String fallbackUrl,
      String fallbackSecret,
      Predicate<UUID> allowPrivate,
      Clock clock) {
    this.allowPrivate = allowPrivate;
    this.settings = settings;
    this.box = box;
    this.clock = clock;
    if (fallbackUrl == null || fallbackUrl.isBlank()) {
      this.fallbackOrg = Optional::empty;
      this.fallback = null;
    } else {
      if (fallbackSecret == null || fallbackSecret.length() < MIN_SECRET) {
        throw new IllegalArgumentException(
            "GITOPSHQ_WEBHOOK_SECRET must be set (16+ characters) when GITOPSHQ_WEBHOOK_URL is");
      }
      this.fallbackOrg = fallbackOrg;
      this.fallback =
          new Target(
              URI.create(fallbackUrl.trim()),
              fallbackSecret.getBytes(StandardCharsets.UTF_8),
              List.of(),
              "configuration",
              true);
    }
  }

  /** The organization's webhook, if it has one. */
  public Optional<Target> forOrg(UUID orgId) {
    Optional<NotificationSettingsMapper.Row> row = settings.find(orgId);
    if (row.isPresent()) {
      NotificationSettingsMapper.Row r = row.get();
      return Optional.of(
          new Target(
              URI.create(r.webhookUrl()),
              box.open(r.secretSealed(), context(orgId)),
              r.events(),
              "organization",
              allowPrivate.test(orgId)));
    }
    return isFallbackOrg(orgId) ? Optional.of(fallback) : Optional.empty();
  }

  /**
   * Stores an organization's webhook. A null secret keeps the stored one (an error when there is
   * none).
   */
  public NotificationSettingsMapper.Row save(
      UUID orgId, String url, String secret, List<String> events, String by) {
    byte[] sealed;
    if (secret != null) {
      sealed = box.seal(secret.getBytes(StandardCharsets.UTF_8), context(orgId));
    } else {
      sealed =
          settings
              .find(orgId)
              .map(NotificationSettingsMapper.Row::secretSealed)
              .orElseThrow(() -> new IllegalArgumentException("secret"));
    }
    Instant now = clock.instant();
    NotificationSettingsMapper.Row row =
        new NotificationSettingsMapper.Row(orgId, url, sealed, List.copyOf(events), now, by);
    settings.upsert(row);
    return row;
  }

  /** Whether the organization's webhook may point at loopback or private addresses. */
  public boolean allowsPrivate(UUID orgId) {
    return allowPrivate.test(orgId);
  }

  /** Whether the organization uses the configured fallback rather than settings of its own. */
  public boolean usesFallback(UUID orgId) {
    return isFallbackOrg(orgId) && settings.find(orgId).isEmpty();
  }

  private boolean isFallbackOrg(UUID orgId) {
    return fallback != null && fallbackOrg.get().map(orgId::equals).orElse(false);
  }

  /** The sealing context binds a secret to its organization: it cannot be moved to another. */
  private static String context(UUID orgId) {
    return "org-notifications:" + orgId;
  }
}

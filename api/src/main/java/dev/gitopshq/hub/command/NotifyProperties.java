package dev.gitopshq.hub.command;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Notification settings of the hub. Each organization configures its own webhook over REST; these
 * are the hub-wide parts.
 *
 * @param webhookUrl the bootstrap organization's webhook while it has none of its own
 *     (GITOPSHQ_WEBHOOK_URL); empty for none
 * @param webhookSecret its HMAC-SHA256 key (GITOPSHQ_WEBHOOK_SECRET)
 * @param privateTargets which organizations' webhooks may point at loopback, private or link-local
 *     addresses (GITOPSHQ_NOTIFY_PRIVATE_TARGETS): {@code operator} (the default: only the operator
 *     organization's), {@code all} or {@code none}
 */
@ConfigurationProperties("gitopshq.notify")
public record NotifyProperties(String webhookUrl, String webhookSecret, String privateTargets) {
  public NotifyProperties {
    privateTargets =
        privateTargets == null || privateTargets.isBlank() ? "operator" : privateTargets;
    if (!List.of("operator", "all", "none").contains(privateTargets)) {
      throw new IllegalArgumentException(
          "GITOPSHQ_NOTIFY_PRIVATE_TARGETS must be operator, all or none, not '"
              + privateTargets
              + "'");
    }
  }

  @Override
  public String toString() {
    return "NotifyProperties[webhookUrl=" + webhookUrl + "]";
  }
}

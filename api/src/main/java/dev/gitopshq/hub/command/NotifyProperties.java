package dev.gitopshq.hub.command;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The notification webhook.
 *
 * @param webhookUrl where JSON events are POSTed (GITOPSHQ_WEBHOOK_URL); empty disables delivery
 * @param webhookSecret the HMAC-SHA256 key for the signature header (GITOPSHQ_WEBHOOK_SECRET)
 */
@ConfigurationProperties("gitopshq.notify")
public record NotifyProperties(String webhookUrl, String webhookSecret) {
  @Override
  public String toString() {
    return "NotifyProperties[webhookUrl=" + webhookUrl + "]";
  }
}

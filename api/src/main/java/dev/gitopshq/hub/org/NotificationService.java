package dev.gitopshq.hub.org;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.notify.NotificationSettingsMapper;
import dev.gitopshq.activities.notify.NotificationTargets;
import dev.gitopshq.hub.security.HubPrincipal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** An organization's notification settings: each change is stored and audited together. */
@Service
public class NotificationService {
  private final NotificationTargets targets;
  private final NotificationSettingsMapper settings;
  private final AuditLog audit;

  public NotificationService(
      NotificationTargets targets, NotificationSettingsMapper settings, AuditLog audit) {
    this.targets = targets;
    this.settings = settings;
    this.audit = audit;
  }

  @Transactional(readOnly = true)
  public Optional<NotificationSettingsMapper.Row> find(UUID orgId) {
    return settings.find(orgId);
  }

  /** Stores the webhook (a null secret keeps the stored one) and audits the change. */
  @Transactional
  public void save(HubPrincipal caller, String url, String secret, List<String> events) {
    targets.save(caller.orgId(), url, secret, events, caller.id());
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("webhookUrl", url);
    d.put("events", events);
    d.put("secretChanged", secret != null);
    audit.record(
        caller.orgId(),
        caller.actor(),
        "notifications.updated",
        "org",
        caller.orgId().toString(),
        d);
  }

  /** Stops sending; audited when there was something to stop. */
  @Transactional
  public void delete(HubPrincipal caller) {
    if (settings.delete(caller.orgId()) == 1) {
      audit.record(
          caller.orgId(),
          caller.actor(),
          "notifications.removed",
          "org",
          caller.orgId().toString(),
          Map.of());
    }
  }
}

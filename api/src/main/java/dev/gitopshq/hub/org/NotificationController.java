package dev.gitopshq.hub.org;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.notify.NotificationTargets;
import dev.gitopshq.activities.notify.WebhookAddresses;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.hub.features.Feature;
import dev.gitopshq.hub.features.PlanGuard;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/notifications}: where the caller's organization's events go. Reading and changing
 * it take {@code org:write} (admins); the secret is write-only.
 */
@RestController
@RequestMapping("/api/v2/notifications")
public class NotificationController {
  private final NotificationTargets targets;
  private final NotificationService settings;
  private final WebhookNotifier notifier;
  private final PlanGuard plans;

  public NotificationController(
      NotificationTargets targets,
      NotificationService settings,
      WebhookNotifier notifier,
      PlanGuard plans) {
    this.targets = targets;
    this.settings = settings;
    this.notifier = notifier;
    this.plans = plans;
  }

  /**
   * @param secret the HMAC-SHA256 key, 16+ characters; required the first time, kept when absent
   * @param events the events to send; absent or empty for all
   */
  record Settings(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String webhookUrl,
      String secret,
      List<String> events) {
    @Override
    public String toString() {
      return "Settings[webhookUrl=" + webhookUrl + ", events=" + events + "]";
    }
  }

  /**
   * @param source {@code organization} (set over REST), {@code configuration} (the hub's
   *     GITOPSHQ_WEBHOOK_URL, for the bootstrap organization) or {@code none}
   */
  record SettingsView(
      String source,
      String webhookUrl,
      boolean secretSet,
      List<String> events,
      List<String> knownEvents,
      Instant updatedAt,
      String updatedBy) {}

  record TestResult(boolean delivered, String webhookUrl, String error) {}

  @GetMapping
  SettingsView get() {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    return view(caller.orgId());
  }

  @PutMapping
  SettingsView put(@RequestBody Settings body) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    plans.require(caller, Feature.NOTIFICATIONS);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    String urlProblem =
        WebhookAddresses.problem(body.webhookUrl(), targets.allowsPrivate(caller.orgId()));
    if (urlProblem != null) {
      c.fail("webhookUrl", urlProblem);
    }
    boolean hasSecret = settings.find(caller.orgId()).isPresent();
    if (body.secret() == null && !hasSecret) {
      c.fail("secret", "is required when the organization has no webhook yet");
    } else if (body.secret() != null
        && (body.secret().length() < NotificationTargets.MIN_SECRET
            || body.secret().length() > 256)) {
      c.fail("secret", "must be 16 to 256 characters");
    }
    List<String> events = body.events() == null ? List.of() : body.events();
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i) == null || !NotificationTargets.EVENTS.contains(events.get(i))) {
        c.fail("events[" + i + "]", "must be one of " + NotificationTargets.EVENTS);
      }
    }
    c.throwIfInvalid();
    List<String> distinct = events.stream().distinct().sorted().toList();
    settings.save(caller, body.webhookUrl(), body.secret(), distinct);
    return view(caller.orgId());
  }

  @DeleteMapping
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete() {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    plans.require(caller, Feature.NOTIFICATIONS);
    settings.delete(caller);
  }

  /** Sends a {@code notification.test} event now and says whether the receiver accepted it. */
  @PostMapping("/test")
  TestResult test() {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    plans.require(caller, Feature.NOTIFICATIONS);
    NotificationTargets.Target target =
        targets
            .forOrg(caller.orgId())
            .orElseThrow(
                () ->
                    new ApiException(
                        new ApiError(
                            409,
                            "no_webhook",
                            "the organization has no notification webhook; PUT"
                                + " /api/v2/notifications first",
                            null)));
    String id = "test-" + UUID.randomUUID();
    String problem =
        target.allowPrivate() ? null : WebhookAddresses.problem(target.url().toString(), false);
    if (problem != null) {
      return new TestResult(false, target.url().toString(), "the webhook URL " + problem);
    }
    try {
      notifier.send(
          target,
          id,
          "notification.test",
          Map.of("orgId", caller.orgId().toString(), "summary", "a test from " + caller.name()));
      return new TestResult(true, target.url().toString(), null);
    } catch (RuntimeException e) {
      return new TestResult(false, target.url().toString(), e.getMessage());
    }
  }

  private SettingsView view(UUID orgId) {
    var row = settings.find(orgId);
    if (row.isPresent()) {
      var r = row.get();
      return new SettingsView(
          "organization",
          r.webhookUrl(),
          true,
          r.events(),
          NotificationTargets.EVENTS,
          r.updatedAt(),
          r.updatedBy());
    }
    if (targets.usesFallback(orgId)) {
      var t = targets.forOrg(orgId).orElseThrow();
      return new SettingsView(
          "configuration",
          t.url().toString(),
          true,
          List.of(),
          NotificationTargets.EVENTS,
          null,
          null);
    }
    return new SettingsView("none", null, false, List.of(), NotificationTargets.EVENTS, null, null);
  }
}

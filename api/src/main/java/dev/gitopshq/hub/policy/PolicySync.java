package dev.gitopshq.hub.policy;

import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.policy.FreezeService;
import dev.gitopshq.activities.policy.OpaClient;
import dev.gitopshq.activities.policy.OpaUnavailableException;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.hub.config.HubProperties;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

/**
 * Keeps OPA loaded with every organization's policies.
 *
 * <p>When the hub is ready (after the bootstrap created the first organization), every shipped
 * policy an organization has no version of is stored as version 1 by {@code system}; an
 * organization created later gets them when it is created ({@link #seed}). Then, in the background,
 * every {@link OpaProperties#republishInterval()}, OPA is checked and given every active version it
 * does not hold, and each organization's freeze windows (data the {@code gitopshq.freeze} policy
 * reads) are written to it again. The hub therefore starts whether or not OPA is up, and an OPA
 * that restarts empty is loaded again within one interval; until then decisions fail closed.
 *
 * <p>Failures are logged once per streak, with a line when it ends, not once per attempt.
 */
@Component
public class PolicySync implements ApplicationListener<ApplicationReadyEvent>, DisposableBean {
  private static final Logger log = LoggerFactory.getLogger(PolicySync.class);

  private final PolicyService policies;
  private final FreezeService freezes;
  private final ShippedPolicies shipped;
  private final OrgMapper orgs;
  private final HubProperties hub;
  private final OpaProperties opa;
  private final String opaAddress;

  private ScheduledExecutorService executor;
  // Touched only by the single republisher thread.
  private String failing;
  private final Map<String, String> refusedReported = new HashMap<>();

  PolicySync(
      PolicyService policies,
      FreezeService freezes,
      ShippedPolicies shipped,
      OrgMapper orgs,
      HubProperties hub,
      OpaProperties opa,
      OpaClient client) {
    this.policies = policies;
    this.freezes = freezes;
    this.shipped = shipped;
    this.orgs = orgs;
    this.hub = hub;
    this.opa = opa;
    this.opaAddress = client.address();
  }

  @Override
  public synchronized void onApplicationEvent(ApplicationReadyEvent event) {
    if (executor != null) {
      return;
    }
    if (orgs.findBySlug(hub.bootstrap().orgSlug()).isEmpty()) {
      log.warn(
          "organization '{}' does not exist; no policies are published to OPA",
          hub.bootstrap().orgSlug());
      return;
    }
    orgs.ids().forEach(this::seed);
    executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "policy-republisher");
              t.setDaemon(true);
              return t;
            });
    long every = Math.max(100, opa.republishInterval().toMillis());
    executor.scheduleWithFixedDelay(this::republishAll, 0, every, TimeUnit.MILLISECONDS);
  }

  /**
   * Stores the shipped policies an organization has no version of as version 1 (in the caller's
   * transaction, if there is one). OPA gets them in the next pass, or at once after {@link #nudge}.
   */
  public void seed(UUID orgId) {
    shipped
        .byName()
        .forEach(
            (name, rego) ->
                policies
                    .seedIfAbsent(orgId, name, rego)
                    .ifPresent(
                        row ->
                            log.info(
                                "stored the shipped policy '{}' as version 1 for organization {}",
                                name,
                                orgId)));
  }

  /** Runs a pass now rather than at the next interval (e.g. after an organization was created). */
  public synchronized void nudge() {
    if (executor != null) {
      executor.execute(this::republishAll);
    }
  }

  /** One pass over every organization; never throws (that would cancel every later run). */
  private void republishAll() {
    List<UUID> ids;
    try {
      ids = orgs.ids();
    } catch (RuntimeException e) {
      streak("listing the organizations failed", e, true);
      return;
    }
    for (UUID orgId : ids) {
      republish(orgId);
    }
  }

  /** One pass; never throws, since an exception would cancel every later run. */
  private void republish(UUID orgId) {
    try {
      PolicyService.RepublishReport report = policies.republish(orgId);
      // Written on every pass: it is small, and comparing would cost a read of the same size.
      freezes.push(orgId);
      if (failing != null) {
        log.info("OPA at {} is reachable again", opaAddress);
        failing = null;
      }
      if (!report.uploaded().isEmpty()) {
        log.info("published to OPA at {}: {}", opaAddress, String.join(", ", report.uploaded()));
      }
      report
          .refused()
          .forEach(
              (name, message) -> {
                if (!message.equals(refusedReported.put(orgId + "/" + name, message))) {
                  log.error(
                      "OPA refuses to compile the active version of policy '{}'; until a version"
                          + " that compiles is published, OPA answers with the version it still"
                          + " holds, if any (each decision names it), else decisions fail closed:"
                          + " {}",
                      name,
                      message);
                }
              });
      refusedReported
          .keySet()
          .removeIf(
              k -> k.startsWith(orgId + "/") && !report.refused().containsKey(k.substring(37)));
    } catch (OpaUnavailableException e) {
      streak("OPA is unreachable", e, false);
    } catch (RuntimeException e) {
      // Unexpected (the database, a bug): worth a stack trace, once per streak.
      streak("publishing policies to OPA failed", e, true);
    }
  }

  private void streak(String kind, RuntimeException e, boolean withStackTrace) {
    if (Thread.currentThread().isInterrupted()) {
      // The hub is shutting down and interrupted the pass: not an outage.
      return;
    }
    if (!kind.equals(failing)) {
      log.warn(
          "{}; policy decisions fail closed until the hub can publish again; retrying every {} ms",
          e.getMessage(),
          opa.republishInterval().toMillis(),
          withStackTrace ? e : null);
    }
    failing = kind;
  }

  @Override
  public synchronized void destroy() throws InterruptedException {
    if (executor != null) {
      executor.shutdownNow();
      executor.awaitTermination(10, TimeUnit.SECONDS);
      executor = null;
    }
  }
}

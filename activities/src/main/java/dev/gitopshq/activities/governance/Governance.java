package dev.gitopshq.activities.governance;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.policy.OpaException;
import dev.gitopshq.activities.policy.PolicyDecision;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.evidence.CanonicalJson;
import dev.gitopshq.evidence.Sha256;
import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.Notification;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The activities of the governance gate, once for every governed subject: a timeline step, a policy
 * decision and a notification. {@code kind} names the subject in the audit log ({@code command},
 * {@code deployment}); its {@link GovernedStore} holds its rows.
 */
public class Governance {
  /** The largest decision input kept with a decision, in bytes of canonical JSON. */
  public static final int MAX_RECORDED_INPUT_BYTES = 256 * 1024;

  private final PolicyService policies;
  private final WebhookNotifier webhook;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;

  public Governance(
      PolicyService policies,
      WebhookNotifier webhook,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock) {
    this.policies = policies;
    this.webhook = webhook;
    this.audit = audit;
    this.tx = tx;
    this.clock = clock;
  }

  /**
   * Records timeline step {@code seq}: the event, the status and an audit entry {@code
   * <kind>.<status>}, once however often the activity is retried.
   */
  public void transition(
      GovernedStore store,
      String kind,
      String orgId,
      String id,
      int seq,
      String status,
      boolean terminal,
      String actor,
      String detail) {
    UUID org = UUID.fromString(orgId);
    UUID subject = UUID.fromString(id);
    tx.executeWithoutResult(
        t -> {
          Instant now = clock.instant();
          if (store.insertEvent(org, subject, seq, now, status, actor, detail) == 0) {
            return; // Already recorded by an earlier attempt of this activity.
          }
          store.updateStatus(org, subject, status, detail, terminal, now);
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("status", status);
          d.put("detail", detail);
          d.put("by", actor);
          audit.record(org, new Actor("workflow", id, actor), kind + "." + status, kind, id, d);
        });
  }

  /**
   * Asks policy {@code policy} for the subject's decision, stores it with the policy's version and
   * text hash, and audits {@code <kind>.decision}. Fails closed: while OPA cannot answer, the
   * subject's detail says so and the exception lets Temporal retry.
   */
  public Decision decide(
      GovernedStore store, String kind, String orgId, String id, String policy, JsonNode input) {
    UUID org = UUID.fromString(orgId);
    UUID subject = UUID.fromString(id);
    PolicyDecision d;
    try {
      d = policies.decide(org, policy, input);
    } catch (OpaException e) {
      store.updateDetail(
          org,
          subject,
          "waiting for a policy decision: " + e.getMessage() + " (retrying)",
          clock.instant());
      throw e;
    }
    // The SHA-256 of the input's canonical JSON: evidence names it next to the policy's text hash.
    byte[] canonical = CanonicalJson.bytes(input);
    String inputSha256 = Sha256.hex(canonical);
    // Kept for what-ifs of policy drafts; an input too large to keep is recorded as absent.
    String recordedInput =
        canonical.length <= MAX_RECORDED_INPUT_BYTES
            ? new String(canonical, StandardCharsets.UTF_8)
            : null;
    tx.executeWithoutResult(
        t -> {
          Instant now = clock.instant();
          store.recordDecision(
              org,
              subject,
              d.policyName(),
              d.policyVersion(),
              d.policySha256(),
              d.outcome().wireName(),
              d.reasons(),
              recordedInput,
              now);
          store.updateDetail(org, subject, "", now);
          Map<String, Object> details = new LinkedHashMap<>();
          details.put("policy", d.policyName());
          details.put("version", d.policyVersion());
          details.put("sha256", d.policySha256());
          details.put("inputSha256", inputSha256);
          details.put("outcome", d.outcome().wireName());
          details.put("requiredApprovers", d.requiredApprovers());
          details.put("reasons", d.reasons());
          audit.record(org, Actor.system("opa"), kind + ".decision", kind, id, details);
        });
    return new Decision(
        d.policyName(),
        d.policyVersion(),
        d.outcome().wireName(),
        d.requiredApprovers(),
        d.approverRoles(),
        d.approverTeams(),
        d.reasons());
  }

  /** Sends a notification to the organization's webhook. */
  public void notify(Notification n) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("orgId", n.orgId());
    data.put("subjectId", n.subjectId());
    if (n.clusterId() != null) {
      data.put("clusterId", n.clusterId());
    }
    data.put("summary", n.summary());
    webhook.send(n.orgId(), n.eventId(), n.event(), data);
  }
}

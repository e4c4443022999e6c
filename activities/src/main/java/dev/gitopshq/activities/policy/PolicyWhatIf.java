package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.workflows.governance.FreezeCheck;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A what-if of a policy draft: the draft is evaluated in the real OPA ({@link
 * PolicyService#evaluateDraft}) against the latest decisions the published policy recorded for the
 * organization's commands and deployments (for the freeze policy, its recorded freeze decisions,
 * whose outcome is {@code open}, {@code frozen} or {@code blocked}), and every decision the draft
 * would take differently is listed beside the recorded one, with its input. Nothing is stored but
 * the audit entry {@code policy.what_if}; decisions recorded without their input (before V52) are
 * listed as such, never guessed.
 */
public class PolicyWhatIf {
  /** The most recorded decisions one what-if evaluates. */
  public static final int MAX_LIMIT = 500;

  /** How many it evaluates when the caller does not say. */
  public static final int DEFAULT_LIMIT = 100;

  /** What a row says when its decision was recorded without its input. */
  public static final String INPUT_NOT_RECORDED = "input not recorded";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final PolicyService policies;
  private final DecisionHistoryMapper history;
  private final AuditLog audit;
  private final TransactionTemplate tx;

  public PolicyWhatIf(
      PolicyService policies,
      DecisionHistoryMapper history,
      AuditLog audit,
      PlatformTransactionManager transactions) {
    this.policies = policies;
    this.history = history;
    this.audit = audit;
    this.tx = new TransactionTemplate(transactions);
  }

  /**
   * One recorded decision beside the draft's.
   *
   * @param kind {@code command} or {@code deployment} (for the freeze policy, the subject it froze
   *     or let through)
   * @param subjectId the command's or deployment's id
   * @param at when it was decided
   * @param recordedVersion the published version that decided
   * @param recordedOutcome the recorded outcome
   * @param recordedReasons the recorded reasons
   * @param draftOutcome the draft's outcome, or null when it decided nothing or was not asked
   * @param draftReasons the draft's reasons, empty when it decided nothing
   * @param draftError why the draft decided nothing for this input, or null
   * @param input the recorded input, or null ({@code note} then says so)
   * @param note {@value #INPUT_NOT_RECORDED} for a decision without its input, else null
   */
  public record WhatIfDecision(
      String kind,
      UUID subjectId,
      Instant at,
      Integer recordedVersion,
      String recordedOutcome,
      List<String> recordedReasons,
      String draftOutcome,
      List<String> draftReasons,
      String draftError,
      JsonNode input,
      String note) {}

  /**
   * A what-if's answer.
   *
   * @param policy the policy's name
   * @param draftSha256 the SHA-256 of the draft's text
   * @param limit how many recorded decisions were asked for
   * @param found how many the organization has, up to the limit
   * @param evaluated how many the draft evaluated
   * @param timedOut true when the time budget ran out first (the rest were not evaluated)
   * @param changed the decisions the draft takes differently (outcome or reasons), newest first
   * @param inputNotRecorded the decisions that could not be evaluated: no input was recorded
   */
  public record WhatIfResult(
      String policy,
      String draftSha256,
      int limit,
      int found,
      int evaluated,
      boolean timedOut,
      List<WhatIfDecision> changed,
      List<WhatIfDecision> inputNotRecorded) {}

  /**
   * Evaluates the draft against the latest {@code limit} decisions of policy {@code name} in the
   * organization and audits {@code policy.what_if} (the draft's SHA-256, the limit and the counts).
   *
   * @throws UnknownPolicyException the organization has no such policy
   * @throws IllegalArgumentException the limit is not 1..{@value #MAX_LIMIT}
   * @throws InvalidPolicyException the draft breaks a rule of publishing
   * @throws PolicyCompileException OPA refused the draft
   * @throws WhatIfBusyException another what-if is running on this hub
   * @throws OpaUnavailableException OPA could not be reached
   */
  public WhatIfResult run(UUID orgId, String name, String rego, int limit, Actor actor) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT);
    }
    if (policies.findActive(orgId, name).isEmpty()) {
      throw new UnknownPolicyException("policy '" + name + "' not found");
    }
    PolicyText.requireValid(name, rego);
    List<RecordedDecisionRow> recorded = history.latest(orgId, name, limit);
    List<RecordedDecisionRow> withInput = new ArrayList<>();
    List<JsonNode> inputs = new ArrayList<>();
    List<WhatIfDecision> notRecorded = new ArrayList<>();
    for (RecordedDecisionRow r : recorded) {
      JsonNode input = parse(r.input());
      if (input == null) {
        notRecorded.add(row(r, null, null, null, null, INPUT_NOT_RECORDED));
      } else {
        withInput.add(r);
        inputs.add(input);
      }
    }
    PolicyDrafts.DraftRun run = policies.evaluateDraft(orgId, name, rego, inputs);
    List<WhatIfDecision> changed = new ArrayList<>();
    for (int i = 0; i < run.decisions().size(); i++) {
      RecordedDecisionRow r = withInput.get(i);
      PolicyDrafts.DraftDecision d = run.decisions().get(i);
      List<String> recordedReasons = r.reasons() == null ? List.of() : r.reasons();
      Drafted drafted = drafted(name, d);
      if (drafted.error() != null) {
        changed.add(row(r, null, List.of(), drafted.error(), inputs.get(i), null));
        continue;
      }
      if (!drafted.outcome().equals(r.outcome()) || !drafted.reasons().equals(recordedReasons)) {
        changed.add(row(r, drafted.outcome(), drafted.reasons(), null, inputs.get(i), null));
      }
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("sha256", run.sha256());
    details.put("limit", limit);
    details.put("evaluated", run.decisions().size());
    details.put("changed", changed.size());
    details.put("inputNotRecorded", notRecorded.size());
    details.put("timedOut", run.timedOut());
    tx.executeWithoutResult(
        status -> audit.record(orgId, actor, "policy.what_if", "policy", name, details));
    return new WhatIfResult(
        name,
        run.sha256(),
        limit,
        recorded.size(),
        run.decisions().size(),
        run.timedOut(),
        changed,
        notRecorded);
  }

  /** A draft's decision as compared with a recorded one: outcome and reasons, or why none. */
  private record Drafted(String outcome, List<String> reasons, String error) {}

  /**
   * The freeze policy decides {@code frozen} and {@code blocked}, recorded as the outcome {@code
   * open}, {@code frozen} or {@code blocked} ({@link FreezeService#outcome}); every other policy
   * decides an outcome.
   */
  private static Drafted drafted(String policy, PolicyDrafts.DraftDecision d) {
    if (FreezeService.POLICY.equals(policy) && d.raw() != null) {
      try {
        FreezeCheck check = FreezeService.toCheck(new PolicyEvaluation(policy, 0, null, d.raw()));
        return new Drafted(FreezeService.outcome(check), check.reasons(), null);
      } catch (PolicyEvaluationException | OpaUnavailableException e) {
        return new Drafted(null, List.of(), e.getMessage());
      }
    }
    if (d.decision() == null) {
      return new Drafted(null, List.of(), d.error());
    }
    return new Drafted(d.decision().outcome().wireName(), d.decision().reasons(), null);
  }

  private static WhatIfDecision row(
      RecordedDecisionRow r,
      String draftOutcome,
      List<String> draftReasons,
      String draftError,
      JsonNode input,
      String note) {
    return new WhatIfDecision(
        r.kind(),
        r.subjectId(),
        r.at(),
        r.policyVersion(),
        r.outcome(),
        r.reasons() == null ? List.of() : r.reasons(),
        draftOutcome,
        draftReasons,
        draftError,
        input,
        note);
  }

  private static JsonNode parse(String input) {
    if (input == null) {
      return null;
    }
    try {
      JsonNode node = JSON.readTree(input);
      return node != null && node.isObject() ? node : null;
    } catch (JsonProcessingException e) {
      return null;
    }
  }
}

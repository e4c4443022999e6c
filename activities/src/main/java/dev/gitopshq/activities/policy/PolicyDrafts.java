package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What-ifs' drafts in OPA: a draft of a policy is uploaded under a scratch id ({@code whatif/<epoch
 * millis>/<32 hex token>/gitopshq/<name>}) in a package of its own ({@code
 * gitopshq_whatif_<token>…}, {@link PolicyText#forScratch}) that no decision reads, evaluated, and
 * removed. {@link PolicyService}'s check of OPA's modules leaves a draft alone while it is fresh
 * ({@link #isFreshDraft}) and removes an older one (its hub stopped mid-run).
 */
public final class PolicyDrafts {
  private static final Logger log = LoggerFactory.getLogger(PolicyDrafts.class);

  private final OpaClient opa;
  private final Clock clock;

  PolicyDrafts(OpaClient opa, Clock clock) {
    this.opa = opa;
    this.clock = clock;
  }

  /** Whether the id has the shape of a draft's, fresh or not. */
  static boolean isDraftId(String id) {
    return SCRATCH_ID.matcher(id).matches();
  }

  /**
   * Whether the module is a what-if's draft uploaded less than {@link #SCRATCH_MAX_AGE} before
   * {@code nowMillis}, in the package its id names.
   */
  static boolean isFreshDraft(OpaClient.Module m, long nowMillis) {
    Matcher scratch = SCRATCH_ID.matcher(m.id());
    return scratch.matches()
        && m.packagePath().size() > 1
        && m.packagePath().get(0).equals(PolicyText.scratchRoot(scratch.group(2)))
        && nowMillis - Long.parseLong(scratch.group(1)) < SCRATCH_MAX_AGE.toMillis();
  }

  /** {@code whatif/<epoch millis>/<32 hex token>/gitopshq/<name>}: a what-if's draft. */
  private static final Pattern SCRATCH_ID =
      Pattern.compile(
          "whatif/(\\d{1,15})/([0-9a-f]{32})/gitopshq/[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  /** How long a what-if's draft may stay in OPA before the republisher removes it. */
  static final Duration SCRATCH_MAX_AGE = Duration.ofMinutes(2);

  /** The longest a what-if evaluates before it answers with what it has. */
  public static final Duration WHAT_IF_BUDGET = Duration.ofSeconds(20);

  private final ReentrantLock whatIfs = new ReentrantLock();

  /**
   * One recorded decision evaluated by a draft: the draft's decision, or why there is none.
   *
   * @param decision the draft's decision, or null with {@code error}
   * @param error why the draft decided nothing for this input (it failed, or left {@code decision}
   *     undefined), or null
   * @param raw the draft's {@code decision} document as OPA returned it, or null when it returned
   *     none; policies whose decisions are not outcomes (freeze) read it
   */
  public record DraftDecision(PolicyDecision decision, String error, JsonNode raw) {
    public DraftDecision(PolicyDecision decision, String error) {
      this(decision, error, null);
    }
  }

  /**
   * What a draft decides for each input, in order.
   *
   * @param sha256 the SHA-256 of the draft's text
   * @param decisions one per input evaluated
   * @param timedOut true when the time budget ran out before every input was evaluated
   */
  public record DraftRun(String sha256, List<DraftDecision> decisions, boolean timedOut) {}

  /**
   * Evaluates a draft of policy {@code name} in the real OPA without publishing it: the draft is
   * uploaded under a scratch id in a package of its own ({@link PolicyText#forScratch}), which no
   * decision reads and {@link PolicyService#requireManagedModules} leaves alone while it is fresh
   * ({@link #isFreshDraft}), evaluated for each input, and removed in any case. One what-if runs at
   * a time on this hub; the run stops after {@link #WHAT_IF_BUDGET}.
   *
   * @throws InvalidPolicyException the text breaks a rule of {@link PolicyText}
   * @throws PolicyCompileException OPA refused the draft (errors as the author wrote it)
   * @throws WhatIfBusyException another what-if is running on this hub
   * @throws OpaUnavailableException OPA could not be reached
   */
  public DraftRun evaluate(UUID orgId, String name, String rego, List<JsonNode> inputs) {
    PolicyText.requireValid(name, rego);
    long deadline = System.nanoTime() + WHAT_IF_BUDGET.toNanos();
    try {
      if (!whatIfs.tryLock(5, TimeUnit.SECONDS)) {
        throw new WhatIfBusyException("another what-if is running on this hub; try again shortly");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OpaUnavailableException("interrupted while waiting for another what-if", e);
    }
    String token = UUID.randomUUID().toString().replace("-", "");
    String id = "whatif/" + clock.millis() + "/" + token + "/gitopshq/" + name;
    String root = PolicyText.scratchRoot(token);
    try {
      try {
        opa.putPolicy(id, PolicyText.forScratch(orgId, token, rego));
      } catch (PolicyCompileException e) {
        throw e.asWritten(id.substring(0, id.length() - ("gitopshq/" + name).length()), root)
            .asWritten("", PolicyText.orgRoot(orgId));
      }
      String path = root + "/" + PolicyText.packagePath(orgId, name) + "/" + PolicyText.RESULT_RULE;
      List<DraftDecision> out = new ArrayList<>();
      boolean timedOut = false;
      for (JsonNode input : inputs) {
        if (System.nanoTime() > deadline) {
          timedOut = true;
          break;
        }
        out.add(draftDecision(name, path, input));
      }
      return new DraftRun(PolicyText.sha256(rego), out, timedOut);
    } finally {
      try {
        opa.deletePolicy(id);
      } catch (OpaException e) {
        // The republisher removes it once it is older than SCRATCH_MAX_AGE.
        log.warn("could not remove the what-if draft {} from OPA: {}", id, e.getMessage());
      }
      whatIfs.unlock();
    }
  }

  private DraftDecision draftDecision(String name, String path, JsonNode input) {
    try {
      JsonNode result = opa.evaluate(path, input);
      JsonNode decision = result.isObject() ? result.get("decision") : null;
      if (decision == null || decision.isNull()) {
        return new DraftDecision(
            null, "the draft produced no decision for this input (decision is undefined)");
      }
      try {
        return new DraftDecision(PolicyDecision.of(name, 0, decision), null, decision);
      } catch (PolicyEvaluationException e) {
        return new DraftDecision(null, e.getMessage(), decision);
      }
    } catch (PolicyEvaluationException e) {
      return new DraftDecision(null, e.getMessage());
    }
  }
}

package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.metrics.Meters;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Publishes versioned policies to OPA and asks OPA for decisions.
 *
 * <p><b>Publishing</b> keeps PostgreSQL and OPA in step: inside one transaction holding the
 * policy's advisory lock, the new version is uploaded to OPA first (OPA compiles it; a module that
 * does not compile is refused with OPA's errors and nothing is stored), and only when OPA accepted
 * it is it stored as the active version, the previous one deactivated and the publish audited. If
 * that database step fails after OPA accepted the upload, the previous active version is uploaded
 * again. {@link #republish} repairs anything else that drifts (OPA restarted empty, an upload whose
 * answer was lost, a replica that published while this hub's OPA was down, a module replaced in OPA
 * behind the hub's back): it compares the module text OPA holds with the active version's, uploads
 * where they differ, and audits {@code policy.restored} when OPA held a different text.
 *
 * <p><b>Deciding</b> evaluates the whole package {@code data.gitopshq.<name>} once and reads both
 * {@code decision}, {@code gitopshq_policy_version} and {@code gitopshq_policy_sha256} from that
 * one answer, so the version and text hash recorded with a decision are the ones that produced it.
 * Without a decision there is no approval: every failure is an exception, never a default outcome.
 *
 * <p>One OPA serves every organization, each in its own namespace: policy ids {@code
 * orgs/<org>/gitopshq/<name>}, packages and data under {@code org_<hex>} ({@link PolicyText}).
 */
public class PolicyService {
  private static final Logger log = LoggerFactory.getLogger(PolicyService.class);

  /** The actor of changes the hub makes on its own (shipped defaults). */
  public static final Actor SYSTEM = Actor.system("policies");

  private final OpaClient opa;
  private final PolicyRepository repository;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;

  public PolicyService(
      OpaClient opa,
      PolicyRepository repository,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock) {
    this.opa = opa;
    this.repository = repository;
    this.audit = audit;
    this.tx = new TransactionTemplate(transactions);
    this.clock = clock;
  }

  /**
   * The result of a publish.
   *
   * @param policy the active version after the publish
   * @param previousVersion the version that was active before, or null for a new policy
   * @param changed false when the text equals the active version's: nothing was stored
   */
  public record Published(PolicyRow policy, Integer previousVersion, boolean changed) {}

  /**
   * What one {@link #republish} pass did.
   *
   * @param uploaded the policies uploaded to OPA, as {@code name vN}
   * @param refused policies whose active version OPA refused to compile, with OPA's message (for
   *     example after an OPA upgrade changed the language); they need a new version
   */
  public record RepublishReport(List<String> uploaded, Map<String, String> refused) {}

  /**
   * Publishes a new version of a policy: uploads it to OPA, then stores it as the active version
   * and audits {@code policy.published} (name, version, previous version, SHA-256 of the text).
   * Text identical to the active version publishes nothing and returns that version.
   *
   * @throws InvalidPolicyException the name or text breaks a rule of {@link PolicyText}
   * @throws PolicyCompileException OPA refused the text; nothing was stored, the previous version
   *     stays active in OPA and in the database
   * @throws OpaUnavailableException OPA could not be reached; nothing was stored
   */
  public Published publish(UUID orgId, String name, String rego, Actor actor) {
    PolicyText.requireValid(name, rego);
    String id = PolicyText.opaPolicyId(orgId, name);
    boolean[] accepted = {false};
    try {
      return tx.execute(
          status -> {
            repository.lock(orgId, name);
            Optional<PolicyRow> active = repository.findActive(orgId, name);
            if (active.isPresent() && active.get().rego().equals(rego)) {
              return new Published(active.get(), active.get().version(), false);
            }
            int version = repository.latestVersion(orgId, name) + 1;
            opa.putPolicy(id, PolicyText.forOpa(orgId, rego, version));
            accepted[0] = true;
            PolicyRow row =
                repository.activate(orgId, name, version, rego, actor.id(), clock.instant());
            Integer previous = active.map(PolicyRow::version).orElse(null);
            auditPublished(orgId, actor, row, previous, "api");
            return new Published(row, previous, true);
          });
    } catch (PolicyCompileException e) {
      throw e.asWritten(PolicyText.idPrefix(orgId), PolicyText.orgRoot(orgId));
    } catch (RuntimeException e) {
      if (accepted[0]) {
        // OPA holds a version the database does not: put the active one back.
        log.warn(
            "policy {}: storing the version OPA accepted failed ({}); restoring the active version"
                + " in OPA",
            name,
            e.toString());
        restore(orgId, name);
      }
      throw e;
    }
  }

  /**
   * Stores a shipped default as version 1, created by {@code system}, when the organization has no
   * version of that policy at all; does not talk to OPA ({@link #republish} uploads it), so the hub
   * can start while OPA is down.
   *
   * @return the stored version, or empty when the policy already had one
   */
  public Optional<PolicyRow> seedIfAbsent(UUID orgId, String name, String rego) {
    PolicyText.requireValid(name, rego);
    return tx.execute(
        status -> {
          repository.lock(orgId, name);
          if (repository.latestVersion(orgId, name) > 0) {
            return Optional.<PolicyRow>empty();
          }
          PolicyRow row = repository.activate(orgId, name, 1, rego, "system", clock.instant());
          auditPublished(orgId, SYSTEM, row, null, "shipped default");
          return Optional.of(row);
        });
  }

  /**
   * Makes OPA hold the active version of every policy of the organization: for each, asks OPA which
   * version it has and uploads the active one where they differ.
   *
   * @throws OpaUnavailableException OPA could not be reached; the pass stopped there
   */
  public RepublishReport republish(UUID orgId) {
    List<String> uploaded = new ArrayList<>();
    Map<String, String> refused = new LinkedHashMap<>();
    List<PolicyRow> active = repository.listActive(orgId);
    removeStrays(orgId, active);
    for (PolicyRow p : active) {
      try {
        sync(orgId, p.name()).ifPresent(v -> uploaded.add(p.name() + " v" + v));
      } catch (PolicyCompileException e) {
        refused.put(
            p.name(),
            e.asWritten(PolicyText.idPrefix(orgId), PolicyText.orgRoot(orgId)).getMessage());
      }
    }
    return new RepublishReport(uploaded, refused);
  }

  /**
   * Removes from OPA what no organization's active policies explain: modules of the organization
   * that are no longer active, and modules with the single-namespace ids of hub versions before
   * organizations had namespaces ({@code gitopshq/<name>}), whose packages no decision reads.
   */
  private void removeStrays(UUID orgId, List<PolicyRow> active) {
    String prefix = PolicyText.idPrefix(orgId);
    Set<String> wanted = new HashSet<>();
    active.forEach(p -> wanted.add(PolicyText.opaPolicyId(orgId, p.name())));
    for (String id : opa.listPolicyIds()) {
      boolean legacy = id.startsWith("gitopshq/");
      boolean stale = id.startsWith(prefix) && !wanted.contains(id);
      if (legacy || stale) {
        opa.deletePolicy(id);
        log.info(
            "removed the module {} from OPA: no active policy of this hub is uploaded as it", id);
      }
    }
  }

  /** The active version of every policy of the organization. */
  public List<PolicyRow> listActive(UUID orgId) {
    return repository.listActive(orgId);
  }

  /** The active version of a policy. */
  public Optional<PolicyRow> findActive(UUID orgId, String name) {
    return repository.findActive(orgId, name);
  }

  /** One version of a policy. */
  public Optional<PolicyRow> findVersion(UUID orgId, String name, int version) {
    return repository.findVersion(orgId, name, version);
  }

  /** Every version of a policy, as stored. */
  public List<PolicyVersionRow> versions(UUID orgId, String name) {
    return repository.versions(orgId, name);
  }

  /**
   * Evaluates the policy's package with {@code input} and returns its {@code decision} document and
   * the version that produced it.
   *
   * @throws UnknownPolicyException the organization has no such policy
   * @throws OpaUnavailableException OPA is unreachable, or does not hold the policy yet (it
   *     restarted and the hub has not republished): retry later
   * @throws PolicyEvaluationException the policy failed or left {@code decision} undefined
   */
  public PolicyEvaluation evaluate(UUID orgId, String name, JsonNode input) {
    if (!repository.hasActive(orgId, name)) {
      throw new UnknownPolicyException("policy '" + name + "' not found");
    }
    return Meters.opaDecision(
        name, () -> evaluateInOpa(orgId, name, input), OpaUnavailableException.class::isInstance);
  }

  private PolicyEvaluation evaluateInOpa(UUID orgId, String name, JsonNode input) {
    String id = PolicyText.opaPolicyId(orgId, name);
    JsonNode result =
        opa.evaluate(PolicyText.packagePath(orgId, name) + "/" + PolicyText.RESULT_RULE, input);
    JsonNode version = result.isObject() ? result.get("version") : null;
    if (version == null || !version.canConvertToExactIntegral()) {
      // Not published by the hub (OPA restarted empty, or someone loaded it by hand): the
      // republisher will upload the active version shortly.
      throw new OpaUnavailableException(
          "policy "
              + id
              + " is not loaded in OPA at "
              + opa.address()
              + " yet; the hub"
              + " republishes it within seconds");
    }
    JsonNode sha = result.get("sha256");
    if (sha == null || !sha.isTextual()) {
      throw new OpaUnavailableException(
          "policy "
              + id
              + " in OPA at "
              + opa.address()
              + " carries no text hash yet; the hub"
              + " republishes it within seconds");
    }
    JsonNode decision = result.get("decision");
    if (decision == null || decision.isNull()) {
      throw new PolicyEvaluationException(
          "policy "
              + name
              + " version "
              + version.asInt()
              + " produced no decision for this input (data.gitopshq."
              + name
              + ".decision is undefined)");
    }
    return new PolicyEvaluation(name, version.asInt(), sha.asText(), decision);
  }

  /**
   * The approval decision of policy {@code name} for {@code input}. Fails closed: every way of not
   * getting a well-formed decision is an exception.
   *
   * @throws UnknownPolicyException the organization has no such policy
   * @throws OpaUnavailableException no decision can be had now; retry
   * @throws PolicyEvaluationException the policy gave no usable decision
   */
  public PolicyDecision decide(UUID orgId, String name, JsonNode input) {
    return PolicyDecision.of(evaluate(orgId, name, input));
  }

  /**
   * Brings OPA in line with the database for one policy, under the policy's lock: the module text
   * OPA holds must be exactly the active version's as the hub uploads it. A module OPA holds with
   * other text (replaced behind the hub's back, or an upload whose answer was lost) is replaced and
   * the difference audited as {@code policy.restored}; a missing one (OPA restarted) is uploaded.
   *
   * @return the version uploaded, or empty when OPA already held the active version
   */
  private Optional<Integer> sync(UUID orgId, String name) {
    String id = PolicyText.opaPolicyId(orgId, name);
    return tx.execute(
        status -> {
          repository.lock(orgId, name);
          Optional<PolicyRow> active = repository.findActive(orgId, name);
          Optional<String> loaded = opa.getPolicy(id);
          if (active.isEmpty()) {
            if (loaded.isPresent()) {
              opa.deletePolicy(id);
            }
            return Optional.<Integer>empty();
          }
          PolicyRow row = active.get();
          String expected = PolicyText.forOpa(orgId, row.rego(), row.version());
          if (loaded.isPresent() && loaded.get().equals(expected)) {
            return Optional.<Integer>empty();
          }
          opa.putPolicy(id, expected);
          if (loaded.isPresent()) {
            auditRestored(orgId, row, expected, loaded.get());
          }
          return Optional.of(row.version());
        });
  }

  /**
   * OPA held other text than the hub's active version: say what was found and what was put back.
   */
  private void auditRestored(UUID orgId, PolicyRow row, String expected, String found) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("name", row.name());
    details.put("version", row.version());
    details.put("expectedSha256", PolicyText.sha256(expected));
    details.put("foundSha256", PolicyText.sha256(found));
    details.put("foundLength", found.length());
    details.put(
        "reason", "the module text in OPA differed from the hub's active version and was replaced");
    log.warn(
        "policy {}: OPA held a module whose text differs from version {} (sha256 {}); restored it",
        row.name(),
        row.version(),
        PolicyText.sha256(found));
    audit.record(orgId, SYSTEM, "policy.restored", "policy", row.name(), details);
  }

  private void restore(UUID orgId, String name) {
    try {
      sync(orgId, name);
    } catch (RuntimeException e) {
      // The republisher will retry; until then OPA's answers name the version they came from.
      log.warn(
          "policy {}: could not restore the active version in OPA yet: {}", name, e.toString());
    }
  }

  private void auditPublished(
      UUID orgId, Actor actor, PolicyRow row, Integer previous, String source) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("name", row.name());
    details.put("version", row.version());
    details.put("previousVersion", previous);
    details.put("sha256", PolicyText.sha256(row.rego()));
    details.put("source", source);
    audit.record(orgId, actor, "policy.published", "policy", row.name(), details);
  }
}

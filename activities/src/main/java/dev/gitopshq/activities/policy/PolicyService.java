package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.metrics.Meters;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
  private final PolicyDrafts drafts;

  /**
   * How long a check that OPA holds exactly the hub's modules serves decisions before OPA is listed
   * again: {@value #DEFAULT_MODULE_CHECK_MAX_AGE_MILLIS} ms unless configured.
   */
  public static final long DEFAULT_MODULE_CHECK_MAX_AGE_MILLIS = 1000;

  private final long moduleCheckMaxAgeNanos;
  private final ReentrantLock moduleCheck = new ReentrantLock();
  // Guarded by moduleCheck.
  private boolean modulesVerified;
  private long modulesVerifiedAt;
  private volatile String moduleSetSha256 = "";

  public PolicyService(
      OpaClient opa,
      PolicyRepository repository,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock) {
    this(
        opa,
        repository,
        audit,
        transactions,
        clock,
        Duration.ofMillis(DEFAULT_MODULE_CHECK_MAX_AGE_MILLIS));
  }

  /**
   * @param moduleCheckMaxAge how long a verified module set serves decisions before OPA's modules
   *     are listed and checked again; zero checks before every decision
   */
  public PolicyService(
      OpaClient opa,
      PolicyRepository repository,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock,
      Duration moduleCheckMaxAge) {
    if (moduleCheckMaxAge == null || moduleCheckMaxAge.isNegative()) {
      throw new IllegalArgumentException("the module check's maximum age must be zero or more");
    }
    this.opa = opa;
    this.repository = repository;
    this.audit = audit;
    this.tx = new TransactionTemplate(transactions);
    this.clock = clock;
    this.moduleCheckMaxAgeNanos = moduleCheckMaxAge.toNanos();
    this.drafts = new PolicyDrafts(opa, clock);
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
   * Removes from OPA every module the hub does not manage, auditing each as {@code
   * policy.unmanaged_module_removed}: a module under an id that is no active policy of an existing
   * organization (planted by someone holding OPA's token, or left by an older hub), whatever
   * package it declares. OPA's own configuration (packages under {@code system} under an id that is
   * not the hub's, such as the authorization policy OPA was started with) is left alone: no
   * decision reads it. The republisher calls this once per pass; decisions do the same through
   * {@link #requireManagedModules}.
   *
   * @return the ids removed, escaped for printing
   * @throws OpaUnavailableException OPA could not be reached
   */
  public List<String> removeUnmanaged() {
    ModuleSet set = inspect(opa.listPolicies(), true);
    if (set.unmanaged().isEmpty()) {
      return List.of();
    }
    moduleCheck.lock();
    try {
      // Decisions must look again: one may have been served while the module was there.
      modulesVerified = false;
    } finally {
      moduleCheck.unlock();
    }
    List<String> left = remove(set.unmanaged());
    return set.unmanaged().stream()
        .map(m -> printable(m.id()))
        .filter(id -> !left.contains(id))
        .toList();
  }

  /**
   * The SHA-256 of the module set OPA held at the latest check that found it exactly the hub's
   * (every module's id and text, OPA's own configuration included); empty before the first.
   */
  public String moduleSetSha256() {
    return moduleSetSha256;
  }

  /**
   * Makes sure OPA holds exactly the modules the hub manages before a decision is taken: every
   * module is OPA's own configuration or an active policy of an organization with exactly the text
   * the hub uploads for it. A check serves decisions for the configured maximum age; then OPA's
   * modules are listed again. A module the hub does not manage is removed and audited ({@code
   * policy.unmanaged_module_removed}), one whose text differs is replaced and audited ({@code
   * policy.restored}); if OPA still holds anything else afterwards, no decision is taken.
   *
   * @throws UnmanagedModulesException OPA holds modules the hub does not manage and they could not
   *     be removed: decisions fail closed
   * @throws OpaUnavailableException OPA could not be reached
   */
  public void requireManagedModules() {
    moduleCheck.lock();
    try {
      if (modulesVerified && System.nanoTime() - modulesVerifiedAt < moduleCheckMaxAgeNanos) {
        return;
      }
      modulesVerified = false;
      long listedAt = System.nanoTime();
      ModuleSet set = inspect(opa.listPolicies(), false);
      if (!set.exact()) {
        List<String> left = remove(set.unmanaged());
        for (Differing d : set.differing()) {
          try {
            sync(d.orgId(), d.name());
          } catch (PolicyCompileException e) {
            // OPA refuses the active version: the check below accepts a stored one it holds.
            log.warn("policy {}: OPA refuses to compile the active version", d.name());
          }
        }
        listedAt = System.nanoTime();
        // Accepts a stored version the hub could not replace (OPA refuses to compile the active
        // one): decisions name that version, as they did before.
        set = inspect(opa.listPolicies(), true);
        if (!set.exact()) {
          List<String> ids = new ArrayList<>();
          set.unmanaged().forEach(m -> ids.add(printable(m.id())));
          set.differing().forEach(d -> ids.add(printable(d.id())));
          throw new UnmanagedModulesException(
              "OPA at "
                  + opa.address()
                  + " holds modules the hub does not manage ("
                  + String.join(", ", ids.subList(0, Math.min(5, ids.size())))
                  + (ids.size() > 5 ? " and " + (ids.size() - 5) + " more" : "")
                  + (left.isEmpty() ? "" : "; removing them failed")
                  + "); no decision is taken until OPA holds exactly the hub's modules");
        }
      }
      moduleSetSha256 = set.sha256();
      modulesVerifiedAt = listedAt;
      modulesVerified = true;
    } finally {
      moduleCheck.unlock();
    }
  }

  /** A module under a managed id whose text is not the hub's. */
  private record Differing(String id, UUID orgId, String name) {}

  /**
   * What OPA holds, judged.
   *
   * @param unmanaged modules under ids the hub does not manage
   * @param differing modules under managed ids whose text is not the hub's
   * @param sha256 the SHA-256 of every module's id and text, in id order
   */
  private record ModuleSet(
      List<OpaClient.Module> unmanaged, List<Differing> differing, String sha256) {
    boolean exact() {
      return unmanaged.isEmpty() && differing.isEmpty();
    }
  }

  /**
   * Sorts OPA's modules into OPA's own configuration, the hub's (with the text it uploads for the
   * active version; with {@code storedVersions}, the text of any stored version too), modules with
   * other text under the hub's ids, and modules the hub does not manage.
   */
  private ModuleSet inspect(List<OpaClient.Module> modules, boolean storedVersions) {
    Map<UUID, Map<String, PolicyRow>> activeByOrg = new HashMap<>();
    List<OpaClient.Module> unmanaged = new ArrayList<>();
    List<Differing> differing = new ArrayList<>();
    TreeMap<String, String> set = new TreeMap<>();
    for (OpaClient.Module m : modules) {
      if (PolicyDrafts.isFreshDraft(m, clock.millis())) {
        // A what-if's draft in a package no decision reads, for the few seconds it runs: not part
        // of the module set that decides. An older one (its hub stopped mid-run) is removed.
        continue;
      }
      set.put(PolicyText.sha256(m.id()), PolicyText.sha256(m.raw()));
      Matcher id = MANAGED_ID.matcher(m.id());
      if (!m.packagePath().isEmpty()
          && m.packagePath().get(0).equals("system")
          && !id.matches()
          && !PolicyDrafts.isDraftId(m.id())) {
        // OPA's own configuration (its authorization policy, loaded when OPA started): no decision
        // reads it. Under an id of the hub's, the only ids the hub's token may upload to, a
        // "system" package would be someone with the token widening OPA's authorization policy:
        // judged like any other module there, and removed.
        continue;
      }
      UUID orgId = id.matches() ? uuid(id.group(1)) : null;
      if (orgId == null) {
        unmanaged.add(m);
        continue;
      }
      String name = id.group(2);
      PolicyRow row =
          activeByOrg
              .computeIfAbsent(
                  orgId,
                  o -> {
                    Map<String, PolicyRow> byName = new HashMap<>();
                    repository.listActive(o).forEach(r -> byName.put(r.name(), r));
                    return byName;
                  })
              .get(name);
      if (row == null) {
        unmanaged.add(m);
      } else if (!m.raw().equals(PolicyText.forOpa(orgId, row.rego(), row.version()))
          && !(storedVersions && isStoredVersion(orgId, name, m.raw()))) {
        differing.add(new Differing(m.id(), orgId, name));
      }
    }
    StringBuilder all = new StringBuilder();
    set.forEach((id, text) -> all.append(id).append(' ').append(text).append('\n'));
    return new ModuleSet(unmanaged, differing, PolicyText.sha256(all.toString()));
  }

  /** Whether the text is exactly what the hub uploads for a stored version of the policy. */
  private boolean isStoredVersion(UUID orgId, String name, String raw) {
    Matcher v = VERSION_LINE.matcher(raw);
    String claimed = null;
    while (v.find()) {
      claimed = v.group(1);
    }
    if (claimed == null || claimed.length() > 9) {
      return false;
    }
    int version = Integer.parseInt(claimed);
    return repository
        .findVersion(orgId, name, version)
        .map(r -> raw.equals(PolicyText.forOpa(orgId, r.rego(), r.version())))
        .orElse(false);
  }

  /**
   * Removes the modules from OPA, auditing each removal; a module another one depends on is tried
   * again after the others.
   *
   * @return the ids that could not be removed, escaped
   */
  private List<String> remove(List<OpaClient.Module> modules) {
    List<OpaClient.Module> left = new ArrayList<>(modules);
    boolean progress = true;
    while (!left.isEmpty() && progress) {
      progress = false;
      for (Iterator<OpaClient.Module> it = left.iterator(); it.hasNext(); ) {
        OpaClient.Module m = it.next();
        try {
          opa.deleteListedPolicy(m.id());
        } catch (OpaUnavailableException e) {
          throw e;
        } catch (OpaException e) {
          log.warn(
              "could not remove the module '{}' that the hub does not manage from OPA yet: {}",
              printable(m.id()),
              e.getMessage());
          continue;
        }
        it.remove();
        progress = true;
        auditUnmanagedRemoved(m);
      }
    }
    return left.stream().map(m -> printable(m.id())).toList();
  }

  private void auditUnmanagedRemoved(OpaClient.Module m) {
    String pkg = String.join(".", m.packagePath());
    log.warn(
        "removed the module '{}' (package {}, sha256 {}) from OPA: the hub does not manage it",
        printable(m.id()),
        printable(pkg),
        PolicyText.sha256(m.raw()));
    Optional<UUID> orgId = auditOrg(m);
    if (orgId.isEmpty()) {
      return;
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("moduleId", printable(m.id()));
    details.put("package", printable(pkg));
    details.put("sha256", PolicyText.sha256(m.raw()));
    details.put("length", m.raw().length());
    details.put(
        "reason",
        "OPA held a module under an id that is no active policy of the hub; it was removed so it"
            + " cannot change decisions");
    tx.executeWithoutResult(
        status ->
            audit.record(
                orgId.get(),
                SYSTEM,
                "policy.unmanaged_module_removed",
                "opa_module",
                printable(m.id()),
                details));
  }

  /**
   * Whose audit log records a removed module: the organization whose namespace its package is in
   * (the one whose decisions it could change), else the one its id names, else the operator
   * organization.
   */
  private Optional<UUID> auditOrg(OpaClient.Module m) {
    List<UUID> candidates = new ArrayList<>();
    if (!m.packagePath().isEmpty()) {
      Matcher root = ORG_ROOT.matcher(m.packagePath().get(0));
      if (root.matches()) {
        candidates.add(uuid(root.group(1)));
      }
    }
    Matcher id = ORG_ID_PREFIX.matcher(m.id());
    if (id.lookingAt()) {
      candidates.add(uuid(id.group(1)));
    }
    for (UUID c : candidates) {
      if (c != null && repository.orgExists(c)) {
        return Optional.of(c);
      }
    }
    return repository.operatorOrg();
  }

  /**
   * Evaluates a draft of policy {@code name} in the real OPA without publishing it ({@link
   * PolicyDrafts#evaluate}): uploaded under a scratch id, which {@link #requireManagedModules}
   * leaves alone while it is fresh, evaluated for each input, and removed in any case.
   *
   * @throws InvalidPolicyException the text breaks a rule of {@link PolicyText}
   * @throws PolicyCompileException OPA refused the draft (errors as the author wrote it)
   * @throws WhatIfBusyException another what-if is running on this hub
   * @throws OpaUnavailableException OPA could not be reached
   */
  public PolicyDrafts.DraftRun evaluateDraft(
      UUID orgId, String name, String rego, List<JsonNode> inputs) {
    return drafts.evaluate(orgId, name, rego, inputs);
  }

  private static final Pattern MANAGED_ID =
      Pattern.compile(
          "orgs/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/gitopshq/([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)");
  private static final Pattern ORG_ID_PREFIX =
      Pattern.compile("orgs/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/");
  private static final Pattern ORG_ROOT = Pattern.compile("org_([0-9a-f]{32})");
  private static final Pattern VERSION_LINE =
      Pattern.compile("^" + PolicyText.VERSION_RULE + " := (\\d+)$", Pattern.MULTILINE);

  private static UUID uuid(String text) {
    try {
      return text.length() == 32
          ? UUID.fromString(text.replaceFirst("(.{8})(.{4})(.{4})(.{4})(.{12})", "$1-$2-$3-$4-$5"))
          : UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** Text someone else chose (a module id), as it may be logged: controls escaped, bounded. */
  private static String printable(String text) {
    StringBuilder b = new StringBuilder();
    text.codePoints()
        .limit(200)
        .forEach(
            c -> {
              if (c < 0x20 || c == 0x7f || Character.getType(c) == Character.FORMAT) {
                b.append(String.format("\\u%04x", c));
              } else {
                b.appendCodePoint(c);
              }
            });
    return text.codePointCount(0, text.length()) > 200 ? b + "..." : b.toString();
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
        name,
        () -> {
          requireManagedModules();
          return evaluateInOpa(orgId, name, input);
        },
        OpaUnavailableException.class::isInstance);
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

package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.workflows.governance.FreezeCheck;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Environment freezes: stores freeze windows, keeps OPA's copy of them current, and asks the {@code
 * gitopshq.freeze} policy whether a deployment, or a command a window holds, is frozen.
 *
 * <p>Windows are data, not input: OPA holds the organization's whole list at {@code
 * data.org_<hex>.gitopshq_data.freeze_windows} ({@link #dataPath}), which its freeze policy reads
 * as {@code data.gitopshq_data.freeze_windows} ({@code [{id, environment, project, starts_at,
 * ends_at, reason, command_types}]}, names with {@code ""} for every one, times in RFC 3339 UTC).
 * PostgreSQL is the source of truth; OPA's copy is written after every change, by the hub's
 * republish pass (so an OPA that restarted empty gets it back) and right before every freeze
 * decision ({@link #check}). A change made while OPA is down is still stored, and reaches OPA with
 * the next push.
 */
public class FreezeService {
  private static final Logger log = LoggerFactory.getLogger(FreezeService.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The policy that decides freezes. */
  public static final String POLICY = "freeze";

  /** Where OPA holds an organization's windows. */
  public static String dataPath(UUID orgId) {
    return PolicyText.dataPath(orgId, "freeze_windows");
  }

  private final OpaClient opa;
  private final PolicyService policies;
  private final FreezeWindowMapper windows;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;
  private final FreezeDecisionMapper decisions;

  // Serializes read-then-write pushes in this hub, so an older list never overwrites a newer one.
  private final Object pushLock = new Object();

  public FreezeService(
      OpaClient opa,
      PolicyService policies,
      FreezeWindowMapper windows,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock) {
    this(opa, policies, windows, audit, transactions, clock, null);
  }

  /**
   * @param decisions where {@link #record} keeps decisions for what-ifs; null records none
   */
  public FreezeService(
      OpaClient opa,
      PolicyService policies,
      FreezeWindowMapper windows,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock,
      FreezeDecisionMapper decisions) {
    this.decisions = decisions;
    this.opa = opa;
    this.policies = policies;
    this.windows = windows;
    this.audit = audit;
    this.tx = new TransactionTemplate(transactions);
    this.clock = clock;
  }

  /**
   * A window to create; names are what the audit log and OPA show.
   *
   * @param environmentId null: every environment (then {@code environment} is null too)
   * @param projectId null: every project (then {@code project} is null too)
   * @param commandTypes the command types the window also holds ({@link
   *     FreezeWindowRow#ALL_COMMANDS} for all); empty for deployments only
   */
  public record NewWindow(
      UUID environmentId,
      String environment,
      UUID projectId,
      String project,
      Instant startsAt,
      Instant endsAt,
      String reason,
      List<String> commandTypes) {
    public NewWindow {
      if (!endsAt.isAfter(startsAt)) {
        throw new IllegalArgumentException("a freeze window must end after it starts");
      }
      commandTypes = commandTypes == null ? List.of() : List.copyOf(commandTypes);
      if (!commandTypes.isEmpty() && projectId != null) {
        throw new IllegalArgumentException("a window for one project holds no commands");
      }
    }
  }

  /**
   * What a freeze decision about a command is asked about.
   *
   * @param type the command type
   * @param clusterEnvironment the cluster's environment; empty when it has none
   * @param breakGlass whether the requester asked for break-glass
   * @param justification the break-glass justification; may be empty
   * @param time when the command would run
   */
  public record CommandRequest(
      String type,
      String clusterId,
      String clusterName,
      String clusterEnvironment,
      boolean breakGlass,
      String justification,
      Instant time) {
    public CommandRequest {
      clusterEnvironment = clusterEnvironment == null ? "" : clusterEnvironment;
      justification = justification == null ? "" : justification;
    }
  }

  /**
   * What a freeze decision is asked about.
   *
   * @param action deploy, promote or rollback
   * @param environments the names of the environments the deployment writes to
   * @param breakGlass whether the requester asked for break-glass
   * @param justification the break-glass justification; may be empty
   * @param time when the deployment would be written
   */
  public record Request(
      String action,
      String projectId,
      String projectName,
      List<String> environments,
      boolean breakGlass,
      String justification,
      Instant time) {
    public Request {
      environments = List.copyOf(environments);
      justification = justification == null ? "" : justification;
    }
  }

  /** Every window of the organization, by start. */
  public List<FreezeWindowRow> list(UUID orgId) {
    return windows.list(orgId);
  }

  /** The windows covering now ({@code active}) or not covering now ({@code !active}). */
  public List<FreezeWindowRow> list(UUID orgId, boolean active) {
    Instant now = clock.instant();
    return active ? windows.listCovering(orgId, now) : windows.listNotCovering(orgId, now);
  }

  public Optional<FreezeWindowRow> find(UUID orgId, UUID id) {
    return windows.find(orgId, id);
  }

  /** The id of the organization's environment with this name, if any. */
  public Optional<UUID> environmentId(UUID orgId, String name) {
    return windows.environmentId(orgId, name);
  }

  /** The id of the organization's project with this name, if any. */
  public Optional<UUID> projectId(UUID orgId, String name) {
    return windows.projectId(orgId, name);
  }

  /**
   * Stores a window, audits {@code freeze_window.created}, then writes the organization's windows
   * to OPA (a failure to reach OPA is logged: the window is stored and the next push carries it).
   */
  public FreezeWindowRow create(UUID orgId, Actor actor, NewWindow w) {
    FreezeWindowRow created =
        tx.execute(
            status -> {
              FreezeWindowRow row =
                  new FreezeWindowRow(
                      UUID.randomUUID(),
                      orgId,
                      w.environmentId(),
                      w.environment(),
                      w.projectId(),
                      w.project(),
                      w.startsAt(),
                      w.endsAt(),
                      w.reason(),
                      actor.id(),
                      clock.instant(),
                      w.commandTypes());
              windows.insert(row);
              FreezeWindowRow stored = windows.find(orgId, row.id()).orElseThrow();
              audit.record(
                  orgId,
                  actor,
                  "freeze_window.created",
                  "freeze_window",
                  stored.id().toString(),
                  details(stored));
              return stored;
            });
    pushAfterChange(orgId);
    return created;
  }

  /**
   * Deletes a window, audits {@code freeze_window.deleted}, then writes the organization's windows
   * to OPA (failures logged, as for {@link #create}).
   *
   * @return the deleted window, or empty when the organization has no such window
   */
  public Optional<FreezeWindowRow> delete(UUID orgId, Actor actor, UUID id) {
    Optional<FreezeWindowRow> deleted =
        tx.execute(
            status -> {
              Optional<FreezeWindowRow> row = windows.find(orgId, id);
              if (row.isEmpty() || windows.delete(orgId, id) == 0) {
                return Optional.<FreezeWindowRow>empty();
              }
              audit.record(
                  orgId,
                  actor,
                  "freeze_window.deleted",
                  "freeze_window",
                  id.toString(),
                  details(row.get()));
              return row;
            });
    if (deleted.isPresent()) {
      pushAfterChange(orgId);
    }
    return deleted;
  }

  /**
   * The organization's windows as the policy reads them: {@code [{id, environment, project,
   * starts_at, ends_at, reason, command_types}]}, {@code ""} for every environment or project.
   */
  public ArrayNode document(UUID orgId) {
    ArrayNode out = JSON.createArrayNode();
    for (FreezeWindowRow w : windows.list(orgId)) {
      ObjectNode o = out.addObject();
      o.put("id", w.id().toString());
      o.put("environment", w.environment() == null ? "" : w.environment());
      o.put("project", w.project() == null ? "" : w.project());
      o.put("starts_at", w.startsAt().toString());
      o.put("ends_at", w.endsAt().toString());
      o.put("reason", w.reason());
      ArrayNode types = o.putArray("command_types");
      w.commandTypes().forEach(types::add);
    }
    return out;
  }

  /**
   * Writes the organization's windows to OPA at {@link #dataPath}, replacing what it held. Call it
   * before evaluating {@code gitopshq.freeze} when OPA may have restarted; {@link #check} does.
   *
   * @throws OpaUnavailableException OPA could not be reached
   */
  public void push(UUID orgId) {
    synchronized (pushLock) {
      opa.putData(dataPath(orgId), document(orgId));
    }
  }

  /** The input document of {@code gitopshq.freeze} for a request. */
  public static JsonNode input(Request r) {
    ObjectNode in = JSON.createObjectNode();
    in.put("action", r.action());
    ObjectNode project = in.putObject("project");
    project.put("id", r.projectId());
    project.put("name", r.projectName());
    ArrayNode envs = in.putArray("environments");
    r.environments().forEach(name -> envs.addObject().put("name", name));
    ObjectNode bg = in.putObject("break_glass");
    bg.put("requested", r.breakGlass());
    bg.put("justification", r.justification());
    in.put("time", r.time().toString());
    return in;
  }

  /**
   * The windows that hold a command now: they cover {@code at}, hold its type, are for its
   * cluster's environment (or every environment) and for every project. {@code input.freezes} of
   * the command's approval decision, and what {@link #checkCommand} asks about.
   */
  public List<FreezeWindowRow> holding(
      UUID orgId, String type, String clusterEnvironment, Instant at) {
    return windows.listCovering(orgId, at).stream()
        .filter(w -> w.projectId() == null && w.holdsCommand(type))
        .filter(w -> w.environment() == null || w.environment().equals(clusterEnvironment))
        .toList();
  }

  /** The input document of {@code gitopshq.freeze} for a command. */
  public static JsonNode input(CommandRequest r) {
    ObjectNode in = JSON.createObjectNode();
    in.put("action", "command");
    ObjectNode project = in.putObject("project");
    project.put("id", "");
    project.put("name", "");
    ArrayNode envs = in.putArray("environments");
    if (!r.clusterEnvironment().isEmpty()) {
      envs.addObject().put("name", r.clusterEnvironment());
    }
    in.putObject("command").put("type", r.type());
    ObjectNode cluster = in.putObject("cluster");
    cluster.put("id", r.clusterId());
    cluster.put("name", r.clusterName());
    cluster.put("environment", r.clusterEnvironment());
    ObjectNode bg = in.putObject("break_glass");
    bg.put("requested", r.breakGlass());
    bg.put("justification", r.justification());
    in.put("time", r.time().toString());
    return in;
  }

  /**
   * Asks {@code gitopshq.freeze} whether a command is frozen, after writing the current windows to
   * OPA, when a window holds it now ({@link #holding}); a command no window holds is not frozen,
   * without asking (so an organization whose freeze policy predates commands is asked only about
   * windows that name commands). Fails closed as {@link #check} does.
   */
  public FreezeCheck checkCommand(UUID orgId, CommandRequest request) {
    if (holding(orgId, request.type(), request.clusterEnvironment(), request.time()).isEmpty()) {
      return new FreezeCheck(
          POLICY,
          0,
          false,
          false,
          List.of("no freeze window holds " + request.type() + " commands on this cluster"));
    }
    push(orgId);
    return toCheck(policies.evaluate(orgId, POLICY, input(request)));
  }

  /**
   * Asks {@code gitopshq.freeze} whether the request's environments are frozen, after writing the
   * current windows to OPA. Fails closed: every way of not getting a well-formed decision is an
   * exception.
   *
   * @throws OpaUnavailableException OPA is unreachable, does not hold the policy yet, or lost the
   *     windows between the push and the decision: retry
   * @throws UnknownPolicyException the organization has no freeze policy
   * @throws PolicyEvaluationException the policy gave no usable decision
   */
  public FreezeCheck check(UUID orgId, Request request) {
    push(orgId);
    return toCheck(policies.evaluate(orgId, POLICY, input(request)));
  }

  /** A freeze decision's outcome as recorded and compared by what-ifs. */
  public static String outcome(FreezeCheck check) {
    return check.blocked() ? "blocked" : check.frozen() ? "frozen" : "open";
  }

  /**
   * Records the policy's decision about a deployment with the input it was taken on, so a what-if
   * of a draft of the freeze policy can replay it. Nothing is recorded for a check the policy was
   * not asked (version 0).
   */
  public void record(UUID orgId, UUID deploymentId, Request request, FreezeCheck check) {
    record(orgId, "deployment", deploymentId, input(request), check);
  }

  /** As {@link #record(UUID, UUID, Request, FreezeCheck)}, for a command. */
  public void record(UUID orgId, UUID commandId, CommandRequest request, FreezeCheck check) {
    record(orgId, "command", commandId, input(request), check);
  }

  private void record(UUID orgId, String kind, UUID subject, JsonNode input, FreezeCheck check) {
    if (decisions == null || check.policyVersion() == 0) {
      return;
    }
    tx.executeWithoutResult(
        status ->
            decisions.record(
                orgId,
                kind,
                subject,
                check.policy(),
                check.policyVersion(),
                outcome(check),
                check.reasons(),
                input.toString(),
                clock.instant()));
  }

  /**
   * A freeze decision about one deployment or command, with what both record: asks {@code ask}
   * ({@link #check} or {@link #checkCommand}); when OPA gives no decision, tells the subject's
   * readers through {@code waiting} ("waiting for a freeze decision: ... (retrying)") and rethrows,
   * so the activity retries; a frozen decision is audited as {@code <subjectKind>.freeze_decision}
   * by {@code system:opa} on the subject.
   *
   * @param subjectKind {@code deployment} or {@code command}: the audit target type
   * @param subjectId the deployment's or command's id
   * @param waiting stores the subject's detail line
   * @throws OpaException as {@code ask} does
   */
  public FreezeCheck decide(
      UUID orgId,
      String subjectKind,
      String subjectId,
      Supplier<FreezeCheck> ask,
      Consumer<String> waiting) {
    FreezeCheck check;
    try {
      check = ask.get();
    } catch (OpaException e) {
      waiting.accept("waiting for a freeze decision: " + e.getMessage() + " (retrying)");
      throw e;
    }
    if (check.frozen()) {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("policy", check.policy());
      d.put("version", check.policyVersion());
      d.put("blocked", check.blocked());
      d.put("reasons", check.reasons());
      tx.executeWithoutResult(
          t ->
              audit.record(
                  orgId,
                  Actor.system("opa"),
                  subjectKind + ".freeze_decision",
                  subjectKind,
                  subjectId,
                  d));
    }
    return check;
  }

  /**
   * Maps a {@code gitopshq.freeze} decision, refusing anything not well-formed.
   *
   * @throws OpaUnavailableException the decision says OPA does not hold the windows ({@code
   *     windows_loaded: false}): retry once the hub has written them
   * @throws PolicyEvaluationException the decision is malformed
   */
  public static FreezeCheck toCheck(PolicyEvaluation e) {
    String where = "policy " + e.policyName() + " version " + e.policyVersion();
    JsonNode d = e.decision();
    if (d == null || !d.isObject()) {
      throw new PolicyEvaluationException(where + " returned no decision object");
    }
    JsonNode loaded = d.get("windows_loaded");
    if (loaded != null && loaded.isBoolean() && !loaded.booleanValue()) {
      throw new OpaUnavailableException(
          where + " has no freeze windows in OPA yet; the hub writes them within seconds");
    }
    JsonNode frozen = d.get("frozen");
    JsonNode blocked = d.get("blocked");
    if (frozen == null || !frozen.isBoolean() || blocked == null || !blocked.isBoolean()) {
      throw new PolicyEvaluationException(
          where + " returned a malformed decision: frozen and blocked must be booleans");
    }
    if (blocked.booleanValue() && !frozen.booleanValue()) {
      throw new PolicyEvaluationException(
          where + " returned a malformed decision: blocked but not frozen");
    }
    List<String> reasons = new ArrayList<>();
    JsonNode r = d.get("reasons");
    if (r != null && !r.isNull()) {
      if (!r.isArray()) {
        throw new PolicyEvaluationException(
            where + " returned a malformed decision: reasons is not an array");
      }
      for (JsonNode s : r) {
        if (!s.isTextual()) {
          throw new PolicyEvaluationException(
              where + " returned a malformed decision: reasons holds a value that is not a string");
        }
        reasons.add(s.asText());
      }
    }
    return new FreezeCheck(
        e.policyName(), e.policyVersion(), frozen.booleanValue(), blocked.booleanValue(), reasons);
  }

  private void pushAfterChange(UUID orgId) {
    try {
      push(orgId);
    } catch (OpaException e) {
      log.warn(
          "freeze windows changed but could not be written to OPA yet ({}); the hub writes them"
              + " with its next republish pass, and before every freeze decision",
          e.getMessage());
    }
  }

  private static Map<String, Object> details(FreezeWindowRow w) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("environment", w.environment());
    d.put("project", w.project());
    d.put("startsAt", w.startsAt().toString());
    d.put("endsAt", w.endsAt().toString());
    d.put("reason", w.reason());
    d.put("commandTypes", w.commandTypes());
    return d;
  }
}

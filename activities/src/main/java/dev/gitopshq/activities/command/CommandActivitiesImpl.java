package dev.gitopshq.activities.command;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyResolver;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.governance.Governance;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.policy.FreezeService;
import dev.gitopshq.activities.policy.FreezeWindowRow;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.workflows.command.CommandActivities;
import dev.gitopshq.workflows.command.CommandSpec;
import dev.gitopshq.workflows.command.CommandStatus;
import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.FreezeCheck;
import dev.gitopshq.workflows.governance.Notification;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.transaction.support.TransactionTemplate;

/** The command workflow's store, policy and notification activities. */
public class CommandActivitiesImpl implements CommandActivities {
  /** The capability each command type needs: the protocol's {@link CommandTypes}. */
  public static final Map<String, String> REQUIRED_CAPABILITY = CommandTypes.REQUIRED_CAPABILITY;

  /** The policy every command decision comes from. */
  public static final String APPROVAL_POLICY = "approval";

  private final CommandMapper commands;
  private final ClusterMapper clusters;
  private final ApprovalPolicyResolver approvalPolicies;
  private final PolicyService policies;
  private final FreezeService freezes;
  private final AuditLog audit;
  private final Clock clock;
  private final Governance governance;
  private final TransactionTemplate tx;
  private final ObjectMapper json = new ObjectMapper();

  public CommandActivitiesImpl(
      CommandMapper commands,
      ClusterMapper clusters,
      ApprovalPolicyResolver approvalPolicies,
      PolicyService policies,
      FreezeService freezes,
      WebhookNotifier webhook,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock) {
    this.freezes = freezes;
    this.commands = commands;
    this.clusters = clusters;
    this.approvalPolicies = approvalPolicies;
    this.policies = policies;
    this.audit = audit;
    this.clock = clock;
    this.tx = tx;
    this.governance = new Governance(policies, webhook, audit, tx, clock);
  }

  @Override
  public void transition(
      String orgId, String commandId, int seq, CommandStatus status, String actor, String detail) {
    if (seq == 1) {
      awaitCreated(UUID.fromString(orgId), UUID.fromString(commandId));
    }
    governance.transition(
        commands, "command", orgId, commandId, seq, status.name(), status.isFinal(), actor, detail);
  }

  /**
   * Waits until the request that created the command has committed (its creation lock), then fails
   * for good when the row is not there: the request rolled back after Temporal had already started
   * the workflow, so there is nothing to govern.
   */
  private void awaitCreated(UUID org, UUID id) {
    Boolean exists =
        tx.execute(
            t -> {
              commands.lockCreation(id);
              return commands.exists(org, id);
            });
    if (!Boolean.TRUE.equals(exists)) {
      throw ApplicationFailure.newNonRetryableFailure(
          "command " + id + " does not exist: the request that created it was rolled back",
          "CommandGone");
    }
  }

  @Override
  public String missingCapability(String orgId, String clusterId, String type) {
    String needed = REQUIRED_CAPABILITY.get(type);
    ClusterRow cluster =
        clusters
            .findById(UUID.fromString(orgId), UUID.fromString(clusterId))
            .orElseThrow(() -> new IllegalStateException("cluster " + clusterId + " is gone"));
    if (CommandTypes.RESOLVE_DRIFT.equals(type)) {
      // The hub checked the exact capability (direct.deploy, or argocd.write when an Argo CD
      // Application manages the object) when it created the command; the agent checks it again.
      return cluster.capabilities().contains(needed)
              || cluster.capabilities().contains(Capabilities.ARGOCD_WRITE)
          ? null
          : needed;
    }
    return needed == null || cluster.capabilities().contains(needed) ? null : needed;
  }

  @Override
  public Decision decide(CommandSpec spec) {
    return governance.decide(
        commands, "command", spec.orgId(), spec.commandId(), APPROVAL_POLICY, input(spec));
  }

  @Override
  public FreezeCheck checkFreeze(CommandSpec spec) {
    UUID org = UUID.fromString(spec.orgId());
    ClusterRow cluster = cluster(org, spec.clusterId());
    FreezeService.CommandRequest request =
        new FreezeService.CommandRequest(
            spec.type(),
            cluster.id().toString(),
            cluster.name(),
            cluster.environment(),
            spec.breakGlass(),
            spec.breakGlass() ? spec.breakGlassJustification() : "",
            clock.instant());
    UUID commandId = UUID.fromString(spec.commandId());
    // checkCommand writes the current freeze windows to OPA first, so a restarted OPA cannot thaw
    // anything; the decision is recorded with its input for what-ifs of the freeze policy.
    return freezes.decide(
        org,
        "command",
        spec.commandId(),
        () -> {
          FreezeCheck check = freezes.checkCommand(org, request);
          freezes.record(org, commandId, request, check);
          return check;
        },
        detail -> commands.updateDetail(org, commandId, detail, clock.instant()));
  }

  private ClusterRow cluster(UUID org, String clusterId) {
    return clusters
        .findById(org, UUID.fromString(clusterId))
        .orElseThrow(() -> new IllegalStateException("cluster " + clusterId + " is gone"));
  }

  /** The OPA input document (docs/policies.md describes it). */
  ObjectNode input(CommandSpec spec) {
    UUID org = UUID.fromString(spec.orgId());
    UUID clusterId = UUID.fromString(spec.clusterId());
    ClusterRow cluster =
        clusters
            .findById(org, clusterId)
            .orElseThrow(() -> new IllegalStateException("cluster gone"));
    ObjectNode in = json.createObjectNode();
    ObjectNode command = in.putObject("command");
    command.put("id", spec.commandId());
    command.put("type", spec.type());
    ObjectNode target = command.putObject("target");
    target.put("namespace", spec.target().namespace());
    target.put("kind", spec.target().kind());
    target.put("name", spec.target().name());
    command.set("params", json.valueToTree(spec.params()));
    command.put("reason", spec.reason() == null ? "" : spec.reason());
    ObjectNode bg = command.putObject("break_glass");
    bg.put("requested", spec.breakGlass());
    bg.put("justification", spec.breakGlass() ? spec.breakGlassJustification() : "");

    ObjectNode c = in.putObject("cluster");
    c.put("id", cluster.id().toString());
    c.put("name", cluster.name());
    c.put("environment", cluster.environment());
    c.set("labels", json.valueToTree(cluster.effectiveLabels()));
    c.set("capabilities", json.valueToTree(cluster.capabilities()));

    ObjectNode r = in.putObject("requester");
    r.put("id", spec.requester().id());
    r.put("type", spec.requester().type());
    r.put("name", spec.requester().name());
    r.put("role", spec.requester().role() == null ? "" : spec.requester().role());
    r.set("teams", json.valueToTree(spec.requester().teams()));
    r.set("behind", json.valueToTree(spec.requester().behind()));

    // The approval policy in force (docs/policies.md#approval-policy-objects), resolved by the one
    // service the cluster view asks too.
    approvalPolicies
        .inForce(cluster)
        .map(p -> p.policy())
        .ifPresentOrElse(
            s -> {
              ObjectNode o = in.putObject("settings");
              o.put("policy", s.name());
              o.set("require_approval", json.valueToTree(s.requireApproval()));
              o.set("auto_approve", json.valueToTree(s.autoApprove()));
              o.put("required_approvers", s.requiredApprovers());
              o.set("approver_roles", json.valueToTree(s.approverRoles()));
              o.set("approver_teams", json.valueToTree(s.approverTeams()));
              ObjectNode b = o.putObject("break_glass");
              b.put("allowed", s.breakGlassAllowed());
              b.set("roles", json.valueToTree(s.breakGlassRoles()));
            },
            () -> in.putNull("settings"));
    ArrayNode freezing = in.putArray("freezes");
    for (FreezeWindowRow w :
        freezes.holding(org, spec.type(), cluster.environment(), clock.instant())) {
      ObjectNode f = freezing.addObject();
      f.put("id", w.id().toString());
      f.put("environment", w.environment() == null ? "" : w.environment());
      f.set("command_types", json.valueToTree(w.commandTypes()));
      f.put("starts_at", w.startsAt().toString());
      f.put("ends_at", w.endsAt().toString());
      f.put("reason", w.reason());
    }
    in.put("time", clock.instant().toString());
    return in;
  }

  @Override
  public void notify(Notification n) {
    governance.notify(n);
  }

  /** Used by tests and the REST layer: the capability names a type needs. */
  public static List<String> types() {
    return List.copyOf(REQUIRED_CAPABILITY.keySet());
  }
}

package dev.gitopshq.hub.drift;

import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.command.CommandMapper;
import dev.gitopshq.activities.command.CommandQuery;
import dev.gitopshq.activities.command.CommandRow;
import dev.gitopshq.activities.drift.DriftCheckRow;
import dev.gitopshq.activities.drift.DriftFindingRow;
import dev.gitopshq.activities.drift.DriftMapper;
import dev.gitopshq.activities.drift.DriftQuery;
import dev.gitopshq.activities.drift.DriftStore;
import dev.gitopshq.activities.drift.DriftUnknownRow;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.hub.command.CommandRequests;
import dev.gitopshq.hub.command.CommandService;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Reads findings and checks, asks for checks, and requests the governed resolve-drift command. */
@Service
public class DriftService {
  private final DriftMapper drift;
  private final DriftStore store;
  private final ClusterMapper clusters;
  private final CommandMapper commands;
  private final CommandService commandService;

  public DriftService(
      DriftMapper drift,
      DriftStore store,
      ClusterMapper clusters,
      CommandMapper commands,
      CommandService commandService) {
    this.drift = drift;
    this.store = store;
    this.clusters = clusters;
    this.commands = commands;
    this.commandService = commandService;
  }

  private ClusterRow cluster(UUID orgId, UUID clusterId) {
    return clusters
        .findById(orgId, clusterId)
        .orElseThrow(() -> ApiException.notFound("cluster " + clusterId));
  }

  @Transactional(readOnly = true)
  public List<DriftFindingRow> list(UUID orgId, UUID clusterId, DriftQuery q) {
    cluster(orgId, clusterId);
    return drift.list(orgId, clusterId, q);
  }

  @Transactional(readOnly = true)
  public DriftFindingRow get(UUID orgId, UUID clusterId, UUID findingId) {
    cluster(orgId, clusterId);
    return drift
        .findFinding(orgId, clusterId, findingId)
        .orElseThrow(() -> ApiException.notFound("drift finding " + findingId));
  }

  /** The newest resolve-drift commands of a finding (at most 5). */
  @Transactional(readOnly = true)
  public List<CommandRow> resolveCommands(UUID orgId, UUID clusterId, UUID findingId) {
    return commands
        .list(
            orgId,
            clusterId,
            new CommandQuery(CommandTypes.RESOLVE_DRIFT, null, null, null, null, null, 200))
        .stream()
        .filter(c -> findingId.toString().equals(c.params().get(CommandTypes.PARAM_FINDING)))
        .limit(5)
        .toList();
  }

  /** Asks for a check now ({@code POST .../drift/checks}). */
  @Transactional
  public DriftCheckRow check(HubPrincipal caller, UUID clusterId) {
    ClusterRow c = cluster(caller.orgId(), clusterId);
    if (!c.capabilities().contains(Capabilities.OBSERVE)) {
      throw ApiException.conflict(
          "the cluster's agent does not report the 'observe' capability drift checks need");
    }
    UUID id = store.request(caller.orgId(), clusterId, "manual", caller.name());
    return drift.findCheck(caller.orgId(), clusterId, id).orElseThrow();
  }

  @Transactional(readOnly = true)
  public DriftCheckRow getCheck(UUID orgId, UUID clusterId, UUID checkId) {
    cluster(orgId, clusterId);
    return drift
        .findCheck(orgId, clusterId, checkId)
        .orElseThrow(() -> ApiException.notFound("drift check " + checkId));
  }

  @Transactional(readOnly = true)
  public Optional<DriftCheckRow> latestCheck(UUID orgId, UUID clusterId) {
    cluster(orgId, clusterId);
    return drift.latestCheck(orgId, clusterId);
  }

  /** A check with the objects it did not compare (empty once the hub no longer keeps them). */
  public record CheckResult(DriftCheckRow check, List<DriftUnknownRow> notCompared) {}

  @Transactional(readOnly = true)
  public CheckResult checkResult(UUID orgId, UUID clusterId, UUID checkId) {
    DriftCheckRow c = getCheck(orgId, clusterId, checkId);
    return new CheckResult(c, drift.unknowns(orgId, clusterId, c.id()));
  }

  /** The cluster's newest finished check: what its drift status is now. */
  @Transactional(readOnly = true)
  public Optional<CheckResult> latestResult(UUID orgId, UUID clusterId) {
    cluster(orgId, clusterId);
    return drift
        .latestFinishedCheck(orgId, clusterId)
        .map(c -> new CheckResult(c, drift.unknowns(orgId, clusterId, c.id())));
  }

  /**
   * Requests resolve-drift for an open finding: a command under the cluster's approval policy like
   * every other. Through Argo CD (argocd.write) when an Application manages the object, else by
   * server-side apply of the desired object (direct.deploy); the hub refuses a capability the agent
   * did not announce.
   */
  public CommandService.Created resolve(
      HubPrincipal caller,
      UUID clusterId,
      UUID findingId,
      String reason,
      CommandRequests.BreakGlass breakGlass,
      String idempotencyKey) {
    ClusterRow c = cluster(caller.orgId(), clusterId);
    DriftFindingRow f = get(caller.orgId(), clusterId, findingId);
    Map<String, String> params = new LinkedHashMap<>();
    params.put(CommandTypes.PARAM_FINDING, f.id().toString());
    if (!f.argoApplication().isEmpty()) {
      params.put(CommandTypes.PARAM_APPLICATION, f.argoApplication());
    } else {
      params.put(CommandTypes.PARAM_FIELD_MANAGER, f.fieldManager());
    }
    CommandRequests.Create req =
        new CommandRequests.Create(
            CommandTypes.RESOLVE_DRIFT,
            new CommandRequests.Target(f.namespace(), f.kind(), f.name()),
            Map.copyOf(params),
            reason,
            breakGlass);
    requireOpen(f);
    String needed = CommandTypes.capabilityFor(CommandTypes.RESOLVE_DRIFT, params).orElseThrow();
    if (!c.capabilities().contains(needed)) {
      throw ApiException.conflict(
          "the cluster's agent does not report the '"
              + needed
              + "' capability resolve-drift needs for this object"
              + (f.argoApplication().isEmpty()
                  ? ""
                  : " (Argo CD Application " + f.argoApplication() + " manages it)"));
    }
    return commandService.create(caller, clusterId, req, params, idempotencyKey);
  }

  private static void requireOpen(DriftFindingRow f) {
    if (!f.open()) {
      throw ApiException.conflict(
          "drift finding "
              + f.id()
              + " was resolved at "
              + f.resolvedAt()
              + "; nothing to resolve");
    }
  }
}

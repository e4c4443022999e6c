package dev.gitopshq.hub.cluster;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.registration.AcceptanceDecision;
import dev.gitopshq.workflows.registration.RegistrationWorkflow;
import io.temporal.client.WorkflowClient;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Hub acceptance (double opt-in): an organization, or a registration token, may require that an
 * admin accepts a newly registered agent before the hub gives it any work. The decision is
 * committed here, in PostgreSQL, the authority; the registration workflow that waits for it is
 * signalled after the commit. An acceptance ends the agent's waiting stream (a trigger tells every
 * replica; the holder closes it) so the agent reconnects into an ordinary one; a rejection revokes
 * the agent's token, which closes its stream as any revocation does.
 */
@Service
public class ClusterAcceptance {
  private static final Logger log = LoggerFactory.getLogger(ClusterAcceptance.class);

  private final ClusterMapper clusters;
  private final ClusterTokenMapper tokens;
  private final OrgMapper orgs;
  private final AuditLog audit;
  private final WorkflowClient temporal;
  private final Clock clock;

  public ClusterAcceptance(
      ClusterMapper clusters,
      ClusterTokenMapper tokens,
      OrgMapper orgs,
      AuditLog audit,
      WorkflowClient temporal,
      Clock clock) {
    this.clusters = clusters;
    this.tokens = tokens;
    this.orgs = orgs;
    this.audit = audit;
    this.temporal = temporal;
    this.clock = clock;
  }

  /** Accepts the pending cluster: its agent gets work from its next stream on (at once). */
  @Transactional
  public ClusterRow accept(HubPrincipal caller, UUID clusterId) {
    return decide(caller, clusterId, true);
  }

  /** Rejects the pending cluster: its agent's token is revoked and its stream closed. */
  @Transactional
  public ClusterRow reject(HubPrincipal caller, UUID clusterId) {
    return decide(caller, clusterId, false);
  }

  /** Whether the organization's newly registered agents wait for an admin by default. */
  @Transactional(readOnly = true)
  public boolean required(UUID orgId) {
    return orgs.requiresAgentAcceptance(orgId);
  }

  /** Sets the organization's default (a registration token's own choice wins over it). */
  @Transactional
  public boolean setRequired(HubPrincipal caller, boolean required) {
    boolean before = orgs.requiresAgentAcceptance(caller.orgId());
    orgs.setRequireAgentAcceptance(caller.orgId(), required);
    if (before != required) {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("requireAgentAcceptance", Map.of("from", before, "to", required));
      audit.record(
          caller.orgId(),
          caller.actor(),
          "org.agent_acceptance.updated",
          "organization",
          caller.orgId().toString(),
          d);
    }
    return required;
  }

  private ClusterRow decide(HubPrincipal caller, UUID clusterId, boolean accept) {
    ClusterRow c =
        clusters
            .findById(caller.orgId(), clusterId)
            .orElseThrow(() -> ApiException.notFound("cluster " + clusterId));
    Instant now = clock.instant();
    if (c.registeredAt() == null || !c.pendingAcceptance()) {
      throw notPending(c, now);
    }
    Optional<UUID> registrationToken =
        clusters.decideAcceptance(
            caller.orgId(), clusterId, accept ? "accepted" : "rejected", caller.name(), now);
    if (registrationToken.isEmpty()) {
      // Another admin decided between the read and the update.
      throw notPending(clusters.findById(caller.orgId(), clusterId).orElse(c), now);
    }
    List<UUID> revoked =
        accept ? List.of() : tokens.revokeAgentTokens(caller.orgId(), clusterId, now);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("name", c.name());
    d.put("apiServerSha256", c.apiServerSha256());
    d.put("nodeCount", c.nodeCount());
    d.put("kubernetesVersion", c.kubernetesVersion());
    d.put("agentVersion", c.agentVersion());
    if (!accept) {
      d.put("revokedAgentTokens", revoked.stream().map(UUID::toString).toList());
    }
    audit.record(
        caller.orgId(),
        caller.actor(),
        accept ? "cluster.accepted" : "cluster.rejected",
        "cluster",
        clusterId.toString(),
        d);
    AcceptanceDecision decision = new AcceptanceDecision(accept, caller.name());
    afterCommit(() -> signal(registrationToken.get(), decision));
    return clusters.findById(caller.orgId(), clusterId).orElseThrow();
  }

  private static ApiException notPending(ClusterRow c, Instant now) {
    String shown =
        c.acceptance() == null ? "needs no acceptance" : "is " + c.acceptance() + " already";
    return ApiException.conflict(
        "cluster "
            + c.name()
            + " does not wait for acceptance: it "
            + (c.registeredAt() == null ? "has no agent yet" : shown));
  }

  private void signal(UUID registrationTokenId, AcceptanceDecision decision) {
    if (registrationTokenId == null) {
      return;
    }
    try {
      temporal
          .newWorkflowStub(
              RegistrationWorkflow.class,
              RegistrationWorkflow.workflowId(registrationTokenId.toString()))
          .decided(decision);
    } catch (RuntimeException e) {
      // The decision is committed; the workflow only records it (and stops waiting on its own).
      log.warn(
          "could not signal the registration workflow of token {}: {}",
          registrationTokenId,
          e.toString());
    }
  }

  private static void afterCommit(Runnable r) {
    if (TransactionSynchronizationManager.isSynchronizationActive()) {
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void afterCommit() {
              r.run();
            }
          });
    } else {
      r.run();
    }
  }

  /** 409 naming the state, for what an agent that waits for acceptance cannot do yet. */
  public static void requireAccepted(ClusterRow c, String what) {
    if (c.registeredAt() != null && c.pendingAcceptance()) {
      throw ApiException.conflict(
          "cluster "
              + c.name()
              + " is Pending acceptance: an organization admin must accept it before "
              + what);
    }
    if (c.registeredAt() != null && c.rejected()) {
      throw ApiException.conflict(
          "cluster "
              + c.name()
              + " was Rejected by an organization admin; issue a new join token to register it"
              + " again");
    }
  }
}

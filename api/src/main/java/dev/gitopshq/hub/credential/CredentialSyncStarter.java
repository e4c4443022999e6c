package dev.gitopshq.hub.credential;

import dev.gitopshq.activities.credential.CredentialMapper;
import dev.gitopshq.hub.temporal.WorkflowStarts;
import dev.gitopshq.workflows.credential.CredentialSyncRequest;
import dev.gitopshq.workflows.credential.CredentialSyncWorkflow;
import dev.gitopshq.workflows.credential.SyncCause;
import io.temporal.client.WorkflowClient;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Starts a cluster's credential sync workflow, or signals the one that runs, after the transaction
 * that caused it commits (at once outside a transaction). A failure to reach Temporal is logged: a
 * target left pending is found by {@link CredentialDelivery#sweep}, and the agent's next connection
 * syncs everything.
 */
@Service
public class CredentialSyncStarter {
  private static final Logger log = LoggerFactory.getLogger(CredentialSyncStarter.class);

  /** The actor of syncs nobody asked for: an agent connecting, the sweep. */
  public static final String SYSTEM = "system";

  private final WorkflowClient temporal;
  private final CredentialMapper credentials;

  public CredentialSyncStarter(WorkflowClient temporal, CredentialMapper credentials) {
    this.temporal = temporal;
    this.credentials = credentials;
  }

  /**
   * Syncs every cluster of the organization that has a credential assigned, e.g. after a new
   * version of its credentials policy: targets it now denies lose their Secrets, targets it now
   * allows get them.
   */
  public void syncOrganization(UUID orgId, String cause, String actor) {
    sync(orgId, credentials.clustersWithAssignments(orgId), cause, actor);
  }

  /** Syncs one cluster's credentials. */
  public void sync(UUID orgId, UUID clusterId, String cause, String actor) {
    sync(orgId, List.of(clusterId), cause, actor);
  }

  /** Syncs the credentials of each cluster. */
  public void sync(UUID orgId, Collection<UUID> clusterIds, String cause, String actor) {
    if (clusterIds.isEmpty()) {
      return;
    }
    WorkflowStarts.afterCommit(
        () -> {
          for (UUID cluster : clusterIds) {
            start(new CredentialSyncRequest(orgId.toString(), cluster.toString(), cause, actor));
          }
        });
  }

  void start(CredentialSyncRequest r) {
    try {
      WorkflowStarts.startOrSignal(
          temporal,
          CredentialSyncWorkflow.class,
          r.workflowId(),
          stub -> WorkflowClient.start(stub::sync, r),
          running -> running.again(new SyncCause(r.cause(), r.actor())));
    } catch (RuntimeException e) {
      log.warn(
          "could not start the credential sync of cluster {}: {}", r.clusterId(), e.toString());
    }
  }
}

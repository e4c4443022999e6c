package dev.gitopshq.hub.adapter;

import dev.gitopshq.activities.adapter.AdapterWiringMapper;
import dev.gitopshq.hub.temporal.WorkflowStarts;
import dev.gitopshq.workflows.adapter.AdapterWiringRequest;
import dev.gitopshq.workflows.adapter.AdapterWiringWorkflow;
import io.temporal.client.WorkflowClient;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Starts a cluster's wiring workflow, or signals the one that runs, after the transaction that
 * caused it commits (at once outside a transaction). A failure to reach Temporal is logged: the
 * agent's next connection, or the next change, wires again.
 */
@Service
public class AdapterWiringStarter {
  private static final Logger log = LoggerFactory.getLogger(AdapterWiringStarter.class);

  private final WorkflowClient temporal;
  private final AdapterWiringMapper wirings;

  public AdapterWiringStarter(WorkflowClient temporal, AdapterWiringMapper wirings) {
    this.temporal = temporal;
    this.wirings = wirings;
  }

  /** Wires one cluster. */
  public void rewire(UUID orgId, UUID clusterId, String cause) {
    WorkflowStarts.afterCommit(
        () -> start(new AdapterWiringRequest(orgId.toString(), clusterId.toString(), cause)));
  }

  /** Wires every cluster bound to the project now or wired for it before. */
  public void rewireProject(UUID orgId, UUID projectId, String cause) {
    WorkflowStarts.afterCommit(
        () -> {
          for (UUID cluster : wirings.clustersOf(orgId, projectId)) {
            start(new AdapterWiringRequest(orgId.toString(), cluster.toString(), cause));
          }
        });
  }

  void start(AdapterWiringRequest r) {
    try {
      WorkflowStarts.startOrSignal(
          temporal,
          AdapterWiringWorkflow.class,
          r.workflowId(),
          stub -> WorkflowClient.start(stub::wire, r),
          running -> running.again(r.cause()));
    } catch (RuntimeException e) {
      log.warn("could not start the adapter wiring of cluster {}: {}", r.clusterId(), e.toString());
    }
  }
}

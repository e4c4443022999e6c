package dev.gitopshq.hub.adapter;

import dev.gitopshq.activities.adapter.AdapterWiringMapper;
import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.adapter.AdapterWiringRequest;
import dev.gitopshq.workflows.adapter.AdapterWiringWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

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
    afterCommit(
        () -> start(new AdapterWiringRequest(orgId.toString(), clusterId.toString(), cause)));
  }

  /** Wires every cluster bound to the project now or wired for it before. */
  public void rewireProject(UUID orgId, UUID projectId, String cause) {
    afterCommit(
        () -> {
          for (UUID cluster : wirings.clustersOf(orgId, projectId)) {
            start(new AdapterWiringRequest(orgId.toString(), cluster.toString(), cause));
          }
        });
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

  void start(AdapterWiringRequest r) {
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        AdapterWiringWorkflow stub =
            temporal.newWorkflowStub(
                AdapterWiringWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(r.workflowId())
                    .setTaskQueue(TaskQueues.HUB)
                    .build());
        WorkflowClient.start(stub::wire, r);
        return;
      } catch (WorkflowExecutionAlreadyStarted e) {
        try {
          temporal.newWorkflowStub(AdapterWiringWorkflow.class, r.workflowId()).again(r.cause());
          return;
        } catch (WorkflowNotFoundException ended) {
          // It ended between the two calls: start a new one.
        }
      } catch (RuntimeException e) {
        log.warn(
            "could not start the adapter wiring of cluster {}: {}", r.clusterId(), e.toString());
        return;
      }
    }
  }
}

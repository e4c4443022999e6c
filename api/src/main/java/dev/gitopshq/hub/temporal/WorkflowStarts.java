package dev.gitopshq.hub.temporal;

import dev.gitopshq.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import java.util.function.Consumer;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Starting a coalescing workflow: one execution per workflow id at a time, a second request while
 * it runs becomes a signal to it (adapter wiring, credential sync), and either happens only once
 * the transaction that caused it has committed.
 */
public final class WorkflowStarts {
  private WorkflowStarts() {}

  /** Runs {@code r} after the current transaction commits, or at once outside one. */
  public static void afterCommit(Runnable r) {
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

  /**
   * Starts workflow {@code workflowId} on {@link TaskQueues#HUB} with {@code start} (which calls
   * {@code WorkflowClient.start} on the stub it is given), or, when it already runs, signals it
   * with {@code signal}. An execution that ends between the two is started again.
   *
   * @throws RuntimeException when Temporal cannot be reached
   */
  public static <W> void startOrSignal(
      WorkflowClient temporal,
      Class<W> type,
      String workflowId,
      Consumer<W> start,
      Consumer<W> signal) {
    for (int attempt = 0; attempt < 3; attempt++) {
      W stub =
          temporal.newWorkflowStub(
              type,
              WorkflowOptions.newBuilder()
                  .setWorkflowId(workflowId)
                  .setTaskQueue(TaskQueues.HUB)
                  .build());
      try {
        start.accept(stub);
        return;
      } catch (WorkflowExecutionAlreadyStarted e) {
        try {
          signal.accept(temporal.newWorkflowStub(type, workflowId));
          return;
        } catch (WorkflowNotFoundException ended) {
          // It ended between the two calls: start a new one.
        }
      }
    }
  }
}

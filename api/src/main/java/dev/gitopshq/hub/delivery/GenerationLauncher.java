package dev.gitopshq.hub.delivery;

import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.generation.DeliveryGenerationWorkflow;
import dev.gitopshq.workflows.generation.GenerationRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Starts delivery generation for a committed configuration revision. Called after the change's
 * transaction committed; a failure to reach Temporal does not undo the change (the configuration is
 * in Git and PostgreSQL): the catch-up sweeper starts generations for revisions that have none.
 */
@Component
public class GenerationLauncher {
  private static final Logger log = LoggerFactory.getLogger(GenerationLauncher.class);

  private final WorkflowClient temporal;

  public GenerationLauncher(WorkflowClient temporal) {
    this.temporal = temporal;
  }

  /**
   * @param trigger config, webhook, manual or org
   * @param actor who caused it, as shown in commit messages
   * @return true when the workflow runs (started now or before)
   */
  public boolean launch(UUID orgId, UUID projectId, long revision, String trigger, String actor) {
    String workflowId = GenerationRequest.workflowId(projectId.toString(), revision);
    try {
      DeliveryGenerationWorkflow stub =
          temporal.newWorkflowStub(
              DeliveryGenerationWorkflow.class,
              WorkflowOptions.newBuilder()
                  .setWorkflowId(workflowId)
                  .setTaskQueue(TaskQueues.HUB)
                  .build());
      WorkflowClient.start(
          stub::run,
          new GenerationRequest(orgId.toString(), projectId.toString(), revision, trigger, actor));
      return true;
    } catch (WorkflowExecutionAlreadyStarted e) {
      return true;
    } catch (RuntimeException e) {
      log.warn(
          "could not start delivery generation {} (the sweeper will retry): {}",
          workflowId,
          e.toString());
      return false;
    }
  }
}

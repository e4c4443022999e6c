package dev.gitopshq.workflows;

import dev.gitopshq.workflows.agentwatch.AgentWatchWorkflowImpl;
import dev.gitopshq.workflows.approval.ApprovalWorkflowImpl;
import dev.gitopshq.workflows.command.CommandWorkflowImpl;
import dev.gitopshq.workflows.delivery.DeliveryGenerationWorkflowImpl;
import dev.gitopshq.workflows.registration.RegistrationWorkflowImpl;
import dev.gitopshq.workflows.release.ReleaseWorkflowImpl;
import dev.gitopshq.workflows.release.RollbackWorkflowImpl;
import dev.gitopshq.workflows.rotation.ScheduledRotationWorkflowImpl;
import dev.gitopshq.workflows.rotation.TokenRotationWorkflowImpl;
import java.util.List;

/**
 * The workflow implementations the hub's worker registers: one list, read by the worker, by the
 * replay test and by the auditor's replay endpoint, so what is replayed is what runs.
 */
public final class HubWorkflows {
  public static final List<Class<?>> IMPLEMENTATIONS =
      List.of(
          RegistrationWorkflowImpl.class,
          CommandWorkflowImpl.class,
          ApprovalWorkflowImpl.class,
          AgentWatchWorkflowImpl.class,
          TokenRotationWorkflowImpl.class,
          ScheduledRotationWorkflowImpl.class,
          DeliveryGenerationWorkflowImpl.class,
          ReleaseWorkflowImpl.class,
          RollbackWorkflowImpl.class);

  private HubWorkflows() {}
}

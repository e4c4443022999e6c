package dev.gitopshq.workflows;

import dev.gitopshq.workflows.adapter.AdapterWiringWorkflowImpl;
import dev.gitopshq.workflows.agentwatch.AgentWatchWorkflowImpl;
import dev.gitopshq.workflows.approval.ApprovalWorkflowImpl;
import dev.gitopshq.workflows.command.CommandWorkflowImpl;
import dev.gitopshq.workflows.credential.CredentialSyncWorkflowImpl;
import dev.gitopshq.workflows.generation.DeliveryGenerationWorkflowImpl;
import dev.gitopshq.workflows.registration.RegistrationWorkflowImpl;
import dev.gitopshq.workflows.release.ReleaseWorkflowImpl;
import dev.gitopshq.workflows.release.RollbackWorkflowImpl;
import dev.gitopshq.workflows.rotation.ScheduledRotationWorkflowImpl;
import dev.gitopshq.workflows.rotation.TokenRotationWorkflowImpl;
import java.util.List;

/**
 * Every workflow implementation the hub runs, in one list: the hub's worker registers these, the
 * replay test replays the recorded histories against them, and the CLI's offline {@code audit
 * replay} does the same on an auditor's machine. A workflow added here is covered by all three.
 */
public final class Workflows {
  /** The implementation classes registered on {@link TaskQueues#HUB}. */
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
          RollbackWorkflowImpl.class,
          AdapterWiringWorkflowImpl.class,
          CredentialSyncWorkflowImpl.class);

  private Workflows() {}

  /** {@link #IMPLEMENTATIONS} as the array Temporal's varargs methods take. */
  public static Class<?>[] implementations() {
    return IMPLEMENTATIONS.toArray(Class<?>[]::new);
  }
}

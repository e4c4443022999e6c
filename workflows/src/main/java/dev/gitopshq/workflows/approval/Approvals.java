package dev.gitopshq.workflows.approval;

import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.workflow.Async;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.function.Supplier;

/**
 * How a governed workflow (a command, a release deployment, a rollback) uses the approval child
 * workflow: wait for it, withdrawing it when the parent is cancelled, or leave a break-glass review
 * behind. Workflow code: call only from workflow threads.
 */
public final class Approvals {
  private Approvals() {}

  /**
   * Starts the approval child and waits until it settles or {@code cancelledBy} names someone; a
   * cancellation is passed on to the child, whose result then says cancelled. The child ends with
   * the parent.
   */
  public static ApprovalResult await(ApprovalRequest request, Supplier<String> cancelledBy) {
    ApprovalWorkflow child =
        Workflow.newChildWorkflowStub(
            ApprovalWorkflow.class,
            ChildWorkflowOptions.newBuilder()
                .setWorkflowId(ApprovalRequest.workflowId(request.approvalId()))
                .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_TERMINATE)
                .build());
    Promise<ApprovalResult> result = Async.function(child::run, request);
    Workflow.getWorkflowExecution(child).get();
    Workflow.await(() -> result.isCompleted() || cancelledBy.get() != null);
    if (!result.isCompleted()) {
      Workflow.newExternalWorkflowStub(
              ApprovalWorkflow.class, ApprovalRequest.workflowId(request.approvalId()))
          .cancel(cancelledBy.get());
    }
    return result.get();
  }

  /**
   * Starts a break-glass review: an inbox item an eligible reviewer acknowledges after the fact. It
   * outlives the parent and stays in the inbox until acknowledged or expired.
   */
  public static void startReview(ApprovalRequest review) {
    ApprovalWorkflow child =
        Workflow.newChildWorkflowStub(
            ApprovalWorkflow.class,
            ChildWorkflowOptions.newBuilder()
                .setWorkflowId(ApprovalRequest.workflowId(review.approvalId()))
                .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON)
                .build());
    Async.function(child::run, review);
    Workflow.getWorkflowExecution(child).get();
  }
}

package dev.gitopshq.workflows.approval;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/** Collects approvals for one subject; see the package documentation. */
@WorkflowInterface
public interface ApprovalWorkflow {
  @WorkflowMethod
  ApprovalResult run(ApprovalRequest request);

  /** An approve or reject. The workflow decides whether it counts. */
  @SignalMethod
  void vote(ApprovalVote vote);

  /** The subject was withdrawn (e.g. the requester cancelled the command). */
  @SignalMethod
  void cancel(String by);

  @QueryMethod
  List<RecordedVote> votes();
}

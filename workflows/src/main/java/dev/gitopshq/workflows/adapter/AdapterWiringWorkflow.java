package dev.gitopshq.workflows.adapter;

import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Wires one cluster's runtime adapters, and again for every change signalled while it runs, so
 * changes that come in bursts (a release committing several environments) wire once or twice, not
 * once each.
 */
@WorkflowInterface
public interface AdapterWiringWorkflow {
  @WorkflowMethod
  WiringOutcome wire(AdapterWiringRequest request);

  /** Another change arrived while this wiring ran: wire once more when it ends. */
  @SignalMethod
  void again(String cause);
}

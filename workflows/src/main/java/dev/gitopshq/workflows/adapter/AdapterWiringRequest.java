package dev.gitopshq.workflows.adapter;

/**
 * Wire one cluster's adapters.
 *
 * @param cause why, for the audit entry (e.g. "binding changed in project shop")
 */
public record AdapterWiringRequest(String orgId, String clusterId, String cause) {
  /** One workflow per cluster at a time: a second request while it runs becomes a signal. */
  public String workflowId() {
    return "adapter-wiring-" + clusterId;
  }
}

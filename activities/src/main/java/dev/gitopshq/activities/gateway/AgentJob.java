package dev.gitopshq.activities.gateway;

import java.time.Instant;
import java.util.UUID;

/**
 * One job for a cluster's agent (table {@code agent_jobs}): which work ({@code kind} and {@code
 * ref}, the work's id in its own table and the correlation id on the wire), where it stands, and
 * how its answer reaches Temporal. The task token is read only to hand an answer over.
 *
 * @param result the value for Temporal as JSON, once the answer is recorded
 */
public record AgentJob(
    UUID id,
    UUID orgId,
    UUID clusterId,
    String kind,
    String ref,
    String state,
    Instant deadline,
    String result,
    int attempts,
    Instant createdAt,
    Instant sentAt,
    Instant reportedAt) {

  /** A command ({@code commands}); its workflow takes the answer as its {@code reported} signal. */
  public static final String KIND_COMMAND = "command";

  /** A direct apply ({@code direct_applies}); it completes the waiting apply activity. */
  public static final String KIND_DIRECT_APPLY = "direct_apply";

  /**
   * One credential of a credential sync round ({@code credential_assignments}, by the round's
   * decision); it completes the waiting send activity. Its reference is the sync request id.
   */
  public static final String KIND_CREDENTIAL_SYNC = "credential_sync";

  public static final String QUEUED = "queued";
  public static final String SENT = "sent";
  public static final String REPORTED = "reported";
  public static final String COMPLETED = "completed";
  public static final String CANCELLED = "cancelled";
}

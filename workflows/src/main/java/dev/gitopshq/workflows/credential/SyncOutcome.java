package dev.gitopshq.workflows.credential;

import java.util.List;

/**
 * How the last round of a sync ended.
 *
 * @param allowed targets the policy allowed
 * @param denied targets it denied ({@code name/namespace})
 * @param sent credentials sent to the agent
 * @param state {@code sent}, {@code not-connected} (no replica holds the agent's stream; its next
 *     connection syncs) or {@code send-failed} (retries exhausted)
 */
public record SyncOutcome(int allowed, List<String> denied, int sent, String state) {
  public static final String SENT = "sent";
  public static final String NOT_CONNECTED = "not-connected";
  public static final String SEND_FAILED = "send-failed";

  public SyncOutcome {
    denied = List.copyOf(denied);
  }
}

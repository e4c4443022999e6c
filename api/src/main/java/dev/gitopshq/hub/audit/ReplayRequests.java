package dev.gitopshq.hub.audit;

import java.time.Instant;
import java.util.List;

/** Bodies of {@code POST /api/v2/audit/replays}. */
public final class ReplayRequests {
  private ReplayRequests() {}

  /**
   * Which workflows to replay: either {@code workflowIds}, or a {@code type} with a {@code [from,
   * to)} range of start times.
   */
  public record Replay(List<String> workflowIds, String type, Instant from, Instant to) {}

  /**
   * One workflow's replay.
   *
   * @param outcome deterministic, diverged, not_found (not the organization's, or Temporal no
   *     longer has it), failed (the replay itself could not run), or skipped (the request's
   *     deadline passed first)
   * @param eventId for diverged: the history event where today's code and the history disagree,
   *     when Temporal names it
   * @param reason Temporal's message, or why it was not replayed
   */
  public record Outcome(
      String workflowId, String workflowType, String outcome, Long eventId, String reason) {}

  /** The report: one outcome per requested workflow, in request order. */
  public record Report(int requested, int deterministic, int diverged, List<Outcome> results) {}
}

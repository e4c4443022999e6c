package dev.gitopshq.activities.cluster;

/**
 * A cluster's token rotation schedule as wanted and as made ({@link
 * ClusterMapper#rotationSchedule}).
 *
 * @param wanted the agent last reported {@code token.rotate}
 * @param scheduled whether the schedule was made (true) or removed (false); null: unknown
 */
public record RotationScheduleState(boolean wanted, Boolean scheduled) {
  /** Whether the recorded state matches what is wanted, so nothing is to be done. */
  public boolean settled() {
    return scheduled != null && scheduled == wanted;
  }
}

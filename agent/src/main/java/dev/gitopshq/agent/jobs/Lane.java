package dev.gitopshq.agent.jobs;

/**
 * The worker threads a kind of job runs on. Kinds that name the same lane share its threads and its
 * queue (the live reads and the reconcile requests do); a lane with one thread runs its jobs one at
 * a time, in the order they arrived.
 *
 * @param thread the name of the lane's threads, e.g. {@code gitopshq-commands}
 * @param threads how many jobs of the lane run at once
 * @param queue how many jobs may wait for a thread; more are refused as busy ({@link
 *     JobKind.Builder#busy})
 */
public record Lane(String thread, int threads, int queue) {

  public Lane {
    if (threads < 1 || queue < 0) {
      throw new IllegalArgumentException("a lane needs a thread and a queue of 0 or more");
    }
  }

  /** One job at a time, the others waiting in arrival order, however many there are. */
  public static Lane serial(String thread) {
    return new Lane(thread, 1, Integer.MAX_VALUE);
  }

  /** {@code threads} jobs at a time and at most {@code queue} waiting. */
  public static Lane bounded(String thread, int threads, int queue) {
    return new Lane(thread, threads, queue);
  }
}

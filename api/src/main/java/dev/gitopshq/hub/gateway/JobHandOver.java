package dev.gitopshq.hub.gateway;

import dev.gitopshq.activities.gateway.AgentJobMapper;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.client.ActivityCanceledException;
import io.temporal.client.ActivityCompletionClient;
import io.temporal.client.ActivityNotExistsException;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Hands a job's recorded answer to Temporal, the one way every kind's answer leaves the hub: by
 * completing the activity that parked the job (its task token), or, for a job parked by a workflow
 * itself, as that workflow's signal.
 *
 * <p>Why both. New kinds park their job from an activity that does not complete on return, so the
 * activity's own timeouts and retries bound the wait and the workflow needs no extra code. Commands
 * of version 2 of the command workflow park from a local activity and take the report as their
 * {@code reported} signal (no dispatch activity to schedule, start and complete per command); those
 * histories, and every command workflow since, replay only with that signal, so the job row keeps a
 * workflow id and signal for them and the same hand-over sends it.
 */
interface JobHandOver {

  /** How long handing one answer to Temporal may take before the sweep takes it over. */
  Duration DEADLINE = Duration.ofSeconds(5);

  /** What became of one hand-over. */
  enum Outcome {
    /** Temporal has it. */
    DELIVERED,
    /** Nobody waits any more (the activity timed out or was cancelled, the workflow ended). */
    GONE,
    /** Temporal could not be reached: the answer stays recorded and the sweep tries again. */
    UNREACHABLE
  }

  Outcome deliver(AgentJobMapper.Handle handle, Object value);

  /** The hand-over over the hub's Temporal client, bounded by {@link #DEADLINE}. */
  static JobHandOver temporal(WorkflowClient temporal) {
    ActivityCompletionClient completions = temporal.newActivityCompletionClient();
    // Fires the gRPC deadlines of hand-overs (one daemon thread, idle but for them).
    ScheduledExecutorService deadlines =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "agent-job-hand-over-deadlines");
              t.setDaemon(true);
              return t;
            });
    return (handle, value) -> {
      Context.CancellableContext bounded =
          Context.current()
              .withDeadlineAfter(DEADLINE.toMillis(), TimeUnit.MILLISECONDS, deadlines);
      try {
        bounded.run(
            () -> {
              if (handle.taskToken() != null) {
                completions.complete(handle.taskToken(), value);
              } else {
                temporal
                    .newUntypedWorkflowStub(handle.workflowId(), Optional.empty(), Optional.empty())
                    .signal(handle.signal(), value);
              }
            });
        return Outcome.DELIVERED;
      } catch (ActivityNotExistsException
          | ActivityCanceledException
          | WorkflowNotFoundException e) {
        return Outcome.GONE;
      } catch (RuntimeException e) {
        return refused(e) ? Outcome.GONE : Outcome.UNREACHABLE;
      } finally {
        bounded.cancel(null);
      }
    };
  }

  /**
   * Temporal answered, and will answer the same every time: the handle names nothing it knows (e.g.
   * a task token of another namespace). Anything else (unavailable, deadline exceeded) may pass and
   * is tried again.
   */
  private static boolean refused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StatusRuntimeException s) {
        Status.Code code = s.getStatus().getCode();
        return code == Status.Code.INVALID_ARGUMENT
            || code == Status.Code.NOT_FOUND
            || code == Status.Code.FAILED_PRECONDITION;
      }
    }
    return false;
  }
}

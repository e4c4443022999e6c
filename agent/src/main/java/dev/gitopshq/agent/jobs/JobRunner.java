package dev.gitopshq.agent.jobs;

import dev.gitopshq.agent.config.Capability;
import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.v1.AgentMessage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the jobs the hub sends (see {@link JobKind}) and answers each with its request's id as the
 * correlation id. For every kind alike:
 *
 * <ol>
 *   <li>a job id whose answer the kind still remembers is answered with it at once, and nothing
 *       runs again;
 *   <li>a request that needs a capability the agent was not given is refused at once;
 *   <li>a repeat of a job that is still queued or running is dropped: the first one answers;
 *   <li>otherwise the job waits for a thread of its lane; when the lane's queue is full it is
 *       answered "busy";
 *   <li>when a thread takes it up after its deadline it is answered "expired" and does not start;
 *   <li>otherwise the handler runs, and its answer is remembered and sent; a handler that throws is
 *       answered by the kind's failure answer, if it has one, and not remembered.
 * </ol>
 *
 * <p>An answer that cannot be sent (the stream is down) is dropped: the hub sends the request again
 * after the reconnect, and a remembered answer repeats it. {@link #submit} never blocks and may be
 * called on the gRPC thread.
 */
public final class JobRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

  /** How long {@link #close()} lets running jobs finish before it interrupts them. */
  static final Duration CLOSE_GRACE = Duration.ofSeconds(2);

  private final Set<Capability> capabilities;
  private final Clock clock;
  private final Predicate<AgentMessage> send;
  private final Map<JobKind<?, ?>, State<?>> kinds = new IdentityHashMap<>();
  private final Map<Lane, ThreadPoolExecutor> lanes = new LinkedHashMap<>();

  /**
   * @param capabilities what the agent was configured with
   * @param send sends an answer on the Connect stream; false when it could not
   * @param kinds every kind this runner accepts; their lanes are started here
   */
  public JobRunner(
      Set<Capability> capabilities,
      Clock clock,
      Predicate<AgentMessage> send,
      Collection<JobKind<?, ?>> kinds) {
    this.capabilities =
        capabilities.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(capabilities);
    this.clock = clock;
    this.send = send;
    for (JobKind<?, ?> kind : kinds) {
      if (kind.lane.queue() != Integer.MAX_VALUE && kind.busy == null) {
        throw new IllegalArgumentException(
            "the " + kind.name + " jobs' lane has a bounded queue but no busy answer");
      }
      this.kinds.put(kind, new State<>(kind.remembered));
      lanes.computeIfAbsent(kind.lane, JobRunner::start);
    }
  }

  /** Accepts one job; returns at once. */
  public <Q, A> void submit(JobKind<Q, A> kind, Q request) {
    State<A> state = state(kind);
    String id = kind.id.apply(request);
    A earlier = state.remembered(id);
    if (earlier != null) {
      log.info("{} {} was already run; repeating its answer", kind.name, safe(id));
      answer(kind, id, earlier);
      return;
    }
    Optional<A> refusal = refusal(kind, request);
    if (refusal.isPresent()) {
      answer(kind, id, refusal.get());
      return;
    }
    if (!state.inFlight.add(id)) {
      log.info("{} {} is still queued or running; its answer will follow", kind.name, safe(id));
      return;
    }
    earlier = state.remembered(id);
    if (earlier != null) {
      // The first one finished in between: it is remembered before it leaves the queued set.
      state.inFlight.remove(id);
      answer(kind, id, earlier);
      return;
    }
    try {
      lanes.get(kind.lane).execute(() -> run(kind, state, id, request));
    } catch (RejectedExecutionException e) {
      state.inFlight.remove(id);
      if (lanes.get(kind.lane).isShutdown()) {
        log.info("{} {} not started: the agent is stopping", kind.name, safe(id));
      } else {
        answer(kind, id, kind.busy.apply(request));
      }
    }
  }

  /** How many jobs of the kind the handler ran (repeats, refusals and expiries excluded). */
  public int started(JobKind<?, ?> kind) {
    return state(kind).started.get();
  }

  private <Q, A> Optional<A> refusal(JobKind<Q, A> kind, Q request) {
    if (kind.needs == null) {
      return Optional.empty();
    }
    Set<Capability> needed = kind.needs.apply(request);
    if (!needed.isEmpty() && !Collections.disjoint(needed, capabilities)) {
      return Optional.empty();
    }
    return Optional.of(kind.refused.apply(request, needed));
  }

  private <Q, A> void run(JobKind<Q, A> kind, State<A> state, String id, Q request) {
    A answer = null;
    try {
      Optional<Instant> deadline =
          kind.deadline == null ? Optional.empty() : kind.deadline.apply(request);
      if (deadline.isPresent() && clock.instant().isAfter(deadline.get())) {
        log.info("{} {} not started: its deadline had passed", kind.name, safe(id));
        answer = kind.expired.apply(request);
      } else {
        state.started.incrementAndGet();
        answer = kind.handler.apply(request);
      }
      state.remember(id, answer);
    } catch (RuntimeException e) {
      // Not remembered: a repeat runs again.
      log.warn("{} {} failed: {}", kind.name, safe(id), Redactor.redact(e.toString()));
      answer = kind.failed == null ? null : kind.failed.apply(request, e);
    } finally {
      // Before the answer leaves: a repeat sent as soon as the hub has it must not be dropped.
      state.inFlight.remove(id);
    }
    if (answer != null) {
      answer(kind, id, answer);
    }
  }

  private <A> void answer(JobKind<?, A> kind, String id, A answer) {
    AgentMessage message =
        kind.payload.set(AgentMessage.newBuilder().setCorrelationId(id), answer).build();
    if (!send.test(message)) {
      log.info(
          "the answer to {} {} was not sent (not connected); the hub will ask again",
          kind.name,
          safe(id));
    }
  }

  @SuppressWarnings("unchecked")
  private <A> State<A> state(JobKind<?, A> kind) {
    State<?> state = kinds.get(kind);
    if (state == null) {
      throw new IllegalArgumentException("no such job kind in this runner: " + kind.name);
    }
    return (State<A>) state;
  }

  /**
   * Stops the lanes: jobs still queued never start (the hub sends them again), running ones get
   * {@link #CLOSE_GRACE} to finish and are then interrupted. Returns within a few seconds.
   */
  @Override
  public void close() {
    List<ThreadPoolExecutor> pools = List.copyOf(lanes.values());
    for (ThreadPoolExecutor pool : pools) {
      pool.shutdown();
      pool.getQueue().clear();
    }
    long until = System.nanoTime() + CLOSE_GRACE.toNanos();
    try {
      for (ThreadPoolExecutor pool : pools) {
        pool.awaitTermination(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
      for (ThreadPoolExecutor pool : pools) {
        pool.shutdownNow();
      }
      for (ThreadPoolExecutor pool : pools) {
        pool.awaitTermination(3, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      pools.forEach(ThreadPoolExecutor::shutdownNow);
      Thread.currentThread().interrupt();
    }
  }

  private static ThreadPoolExecutor start(Lane lane) {
    BlockingQueue<Runnable> queue =
        lane.queue() == Integer.MAX_VALUE
            ? new LinkedBlockingQueue<>()
            : lane.queue() == 0 ? new SynchronousQueue<>() : new ArrayBlockingQueue<>(lane.queue());
    return new ThreadPoolExecutor(
        lane.threads(),
        lane.threads(),
        30,
        TimeUnit.SECONDS,
        queue,
        r -> {
          Thread t = new Thread(r, lane.thread());
          t.setDaemon(true);
          return t;
        });
  }

  /** A hub-chosen id, safe to log. */
  private static String safe(String id) {
    return Redactor.redact(id).replaceAll("\\p{Cntrl}", "?");
  }

  /** What the runner keeps per kind: the remembered answers and the ids queued or running. */
  private static final class State<A> {
    private final Map<String, A> done;
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicInteger started = new AtomicInteger();

    State(int remembered) {
      this.done =
          remembered <= 0
              ? null
              : Collections.synchronizedMap(
                  new LinkedHashMap<>(16, 0.75f, false) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, A> eldest) {
                      return size() > remembered;
                    }
                  });
    }

    A remembered(String id) {
      return done == null ? null : done.get(id);
    }

    void remember(String id, A answer) {
      if (done != null) {
        done.put(id, answer);
      }
    }
  }
}

package dev.gitopshq.agent.jobs;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.config.Capability;
import dev.gitopshq.agent.v1.AgentMessage;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * One kind of job the hub asks of the agent (a command, a direct apply, a credential sync, ...):
 * how its id, handler and answer are found, and the rules the {@link JobRunner} applies to it. The
 * handler holds the kind's domain logic only; the runner decides whether and when it runs.
 *
 * <pre>{@code
 * JobKind<ApplyRelease, ApplyResult> applies =
 *     JobKind.builder("direct apply", ApplyRelease::getApplyId, deployer::apply,
 *             AgentMessage.Builder::setApplyResult)
 *         .lane(Lane.serial("gitopshq-direct-deploy"))
 *         .remembering(1_000)
 *         .requires(r -> Set.of(Capability.DIRECT_DEPLOY), deployer::refused)
 *         .deadline(r -> JobKind.deadline(r.hasDeadline(), r.getDeadline()), deployer::expired)
 *         .build();
 * }</pre>
 *
 * @param <Q> the request, e.g. {@code ExecuteCommand}
 * @param <A> its answer, e.g. {@code CommandResult}
 */
public final class JobKind<Q, A> {

  /** Sets a kind's answer as the payload of the message that carries it to the hub. */
  @FunctionalInterface
  public interface Payload<A> {
    AgentMessage.Builder set(AgentMessage.Builder message, A answer);
  }

  final String name;
  final Function<Q, String> id;
  final Function<Q, A> handler;
  final Payload<A> payload;
  final Lane lane;
  final int remembered;
  final Function<Q, Set<Capability>> needs;
  final BiFunction<Q, Set<Capability>, A> refused;
  final Function<Q, Optional<Instant>> deadline;
  final Function<Q, A> expired;
  final Function<Q, A> busy;
  final BiFunction<Q, RuntimeException, A> failed;

  private JobKind(Builder<Q, A> b) {
    this.name = b.name;
    this.id = b.id;
    this.handler = b.handler;
    this.payload = b.payload;
    this.lane = Objects.requireNonNull(b.lane, "a job kind needs a lane");
    this.remembered = b.remembered;
    this.needs = b.needs;
    this.refused = b.refused;
    this.deadline = b.deadline;
    this.expired = b.expired;
    this.busy = b.busy;
    this.failed = b.failed;
  }

  /**
   * Starts a kind.
   *
   * @param name for the agent's log, e.g. {@code command}
   * @param id the request's id: its idempotency key and the answer's correlation id
   * @param handler runs the job on one of the lane's threads and returns its answer
   * @param payload puts the answer into an {@code AgentMessage}
   */
  public static <Q, A> Builder<Q, A> builder(
      String name, Function<Q, String> id, Function<Q, A> handler, Payload<A> payload) {
    return new Builder<>(name, id, handler, payload);
  }

  /** The kind's name in the agent's log. */
  public String name() {
    return name;
  }

  /** The lane the kind's jobs run on. */
  public Lane lane() {
    return lane;
  }

  /** A protobuf deadline as an instant, when the request carries one. */
  public static Optional<Instant> deadline(boolean present, Timestamp deadline) {
    return present
        ? Optional.of(Instant.ofEpochSecond(deadline.getSeconds(), deadline.getNanos()))
        : Optional.empty();
  }

  /** Collects a kind's rules; every rule but the lane is optional. */
  public static final class Builder<Q, A> {
    private final String name;
    private final Function<Q, String> id;
    private final Function<Q, A> handler;
    private final Payload<A> payload;
    private Lane lane;
    private int remembered;
    private Function<Q, Set<Capability>> needs;
    private BiFunction<Q, Set<Capability>, A> refused;
    private Function<Q, Optional<Instant>> deadline;
    private Function<Q, A> expired;
    private Function<Q, A> busy;
    private BiFunction<Q, RuntimeException, A> failed;

    private Builder(
        String name, Function<Q, String> id, Function<Q, A> handler, Payload<A> payload) {
      this.name = name;
      this.id = id;
      this.handler = handler;
      this.payload = payload;
    }

    /** The threads the kind's jobs run on. */
    public Builder<Q, A> lane(Lane lane) {
      this.lane = lane;
      return this;
    }

    /**
     * Remember the answers of the last {@code count} job ids (the oldest are forgotten first), so a
     * repeat is answered with the first outcome instead of running again. Without it only a repeat
     * of a job still queued or running is not run again.
     */
    public Builder<Q, A> remembering(int count) {
      this.remembered = count;
      return this;
    }

    /**
     * The capabilities a request needs, any one of which lets it run; when the agent has none of
     * them, or the set is empty (the request names nothing the agent knows), {@code refused}
     * answers at once and nothing runs. Refusals are not remembered.
     */
    public Builder<Q, A> requires(
        Function<Q, Set<Capability>> needs, BiFunction<Q, Set<Capability>, A> refused) {
      this.needs = needs;
      this.refused = refused;
      return this;
    }

    /**
     * The instant after which a job must not start; one whose deadline has passed when a thread
     * takes it up is answered with {@code expired} (remembered like any outcome) and not run.
     */
    public Builder<Q, A> deadline(Function<Q, Optional<Instant>> deadline, Function<Q, A> expired) {
      this.deadline = deadline;
      this.expired = expired;
      return this;
    }

    /** The answer when the lane's queue is full; without it the job would wait however long. */
    public Builder<Q, A> busy(Function<Q, A> busy) {
      this.busy = busy;
      return this;
    }

    /** The answer when the handler throws; without it the failure is logged and not answered. */
    public Builder<Q, A> failed(BiFunction<Q, RuntimeException, A> failed) {
      this.failed = failed;
      return this;
    }

    public JobKind<Q, A> build() {
      return new JobKind<>(this);
    }
  }
}

package dev.gitopshq.hub.gateway;

import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.HubMessage;
import java.util.UUID;

/**
 * The hub's handler of one kind of job for agents ({@code agent_jobs.kind}): how the message for
 * the agent is built from the job's reference when a stream carries it, and how the agent's answer
 * is read into the value its workflow waits for. Everything else (parking, sending only from the
 * replica that holds the stream, re-sending after a reconnect, deadlines, recording the answer once
 * and handing it to Temporal) is the {@link JobDispatcher}'s, the same for every kind.
 *
 * <p>A new kind: one request/answer message pair in {@code agent_hub.proto} (the answer names the
 * job's reference, e.g. {@code command_id}), an activity that parks the job with {@code
 * AgentJobMapper.park} (its task token, then {@code doNotCompleteOnReturn}, then {@code
 * AgentGatewayPort.commandQueued} for an immediate send), one implementation of this interface
 * registered with {@link AgentGateway#addJobKind} from the feature's configuration, before the
 * gateway starts, and the agent's handler. Once registered, the kind's answer payload goes to the
 * pipeline and no longer to an {@link AgentStreamListener}. Build the message from the job's
 * reference when it is sent, so secrets and large content never travel through workflow history.
 *
 * @param <R> the value handed to Temporal (the waiting activity's result, or the signal's argument)
 */
public interface JobKind<R> {

  /** The kind's name in {@code agent_jobs.kind} (lower case, e.g. {@code direct_apply}). */
  String name();

  /** The payload of the agent's answer on its stream. */
  AgentMessage.PayloadCase answer();

  /**
   * The capability an agent must have announced to be given such jobs and to answer them (an answer
   * from another ends its stream with PERMISSION_DENIED), or null.
   */
  default String requires() {
    return null;
  }

  /** The job's reference in an answer, or null when it is malformed (the answer is ignored). */
  String ref(AgentMessage answer);

  /** The type of the value handed to Temporal, to read it back from the job row. */
  Class<R> resultType();

  /**
   * The message for the agent, built when a stream carries the job (its correlation id is set to
   * the job's reference). Called again for every send, so what it reads is current.
   *
   * @throws Refused when the job cannot be sent; it is then answered with {@link #unanswered}
   */
  HubMessage.Builder message(AgentJob job);

  /** A stream carried the job (called after every send). */
  default void sent(AgentJob job, HubMessage message, UUID clusterId) {}

  /**
   * Records the agent's answer in the work's own tables, in the transaction that records it on the
   * job, and returns the value for Temporal. Called once per job.
   */
  R answered(AgentJob job, AgentMessage answer);

  /**
   * Records the hub's own answer when no agent's will come (the deadline passed before a stream
   * took the job, or {@link #message} refused it), in the job's transaction, and returns the value
   * for Temporal.
   */
  R unanswered(AgentJob job, String reason);

  /**
   * Why the job was not sent: its deadline passed, while this replica held the agent's stream or,
   * when {@code held} is false, with no stream to carry it.
   */
  String expired(AgentJob job, boolean held);

  /**
   * Whether a replica answers a queued job whose deadline passed without any stream (false: the
   * waiting workflow's own timer decides, and the job is answered only when a stream comes).
   */
  default boolean expiresUnsent() {
    return false;
  }

  /** The job cannot be sent; the message is the reason handed to its workflow. */
  final class Refused extends RuntimeException {
    public Refused(String reason) {
      super(reason, null, false, false);
    }
  }
}

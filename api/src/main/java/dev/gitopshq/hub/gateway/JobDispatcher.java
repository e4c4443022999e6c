package dev.gitopshq.hub.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.HubMessage;
import io.grpc.Status;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The one pipeline of jobs for agents ({@code agent_jobs}): moves parked jobs to the agents whose
 * streams this replica holds, records an agent's answer, and hands it to Temporal, the same way for
 * every {@link JobKind}.
 *
 * <ul>
 *   <li>Sending: only the replica holding the cluster's stream sends, when the job is parked (the
 *       activity's nudge, or the {@code job:} notification of its commit), on the 2 s sweep, and
 *       after the agent's Hello, which sends again what an earlier stream carried (the agent
 *       answers a repeat from memory). A queued job is claimed before it is sent, so the paths
 *       racing each other send it once; a cancelled job is never sent; one whose deadline passed is
 *       answered by the hub instead.
 *   <li>Answers: recorded in the job row and the work's own tables in one transaction that takes
 *       the waiting job, so of two replicas receiving the same answer (or a repeat) one records it.
 *   <li>Hand-over: after the commit, by {@link JobHandOver}, bounded so an outage never holds the
 *       stream. An answer Temporal could not take stays recorded with its handle; the sweep hands
 *       it over again (the holding replica after {@link JobHandOver#DEADLINE}, any replica after a
 *       minute), and marks it completed once Temporal has it or nobody waits. A second hand-over of
 *       the same answer finds the activity already completed (or the workflow ignores a second
 *       report), so each answer takes effect once.
 * </ul>
 */
final class JobDispatcher {
  private static final Logger log = LoggerFactory.getLogger(JobDispatcher.class);

  /** After this, any replica's sweep hands over an answer the holding replica did not. */
  static final Duration STALE = Duration.ofMinutes(1);

  /** The longest job reference an answer may name. */
  static final int MAX_REF = 200;

  /** Temporal's own JSON mapping, so a value reads back as the activity would have returned it. */
  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  private final AgentJobMapper jobs;
  private final AgentConnections connections;
  private final JobHandOver handOver;
  private final TransactionTemplate tx;
  private final Clock clock;
  private final Map<String, JobKind<?>> kinds = new ConcurrentHashMap<>();
  private final Map<AgentMessage.PayloadCase, JobKind<?>> byAnswer = new ConcurrentHashMap<>();

  JobDispatcher(
      AgentJobMapper jobs,
      AgentConnections connections,
      JobHandOver handOver,
      TransactionTemplate tx,
      Clock clock) {
    this.jobs = jobs;
    this.connections = connections;
    this.handOver = handOver;
    this.tx = tx;
    this.clock = clock;
  }

  /** Adds a kind; its name and answer payload must be new. */
  void register(JobKind<?> kind) {
    if (kinds.putIfAbsent(kind.name(), kind) != null) {
      throw new IllegalStateException("job kind " + kind.name() + " is registered twice");
    }
    if (byAnswer.putIfAbsent(kind.answer(), kind) != null) {
      kinds.remove(kind.name());
      throw new IllegalStateException("answer " + kind.answer() + " belongs to another job kind");
    }
  }

  /** The kind of this name, if registered. */
  Optional<JobKind<?>> kind(String name) {
    return Optional.ofNullable(kinds.get(name));
  }

  /** The kind whose answer this payload is, if any. */
  Optional<JobKind<?>> answeredBy(AgentMessage.PayloadCase payload) {
    return Optional.ofNullable(byAnswer.get(payload));
  }

  // ---- sending ----------------------------------------------------------------------------

  /** Sends every job that waits for the session's agent, again if an earlier stream had it. */
  void sendWaiting(AgentSession session) {
    for (AgentJob job : jobs.waiting(session.orgId, session.clusterId)) {
      send(session, job, false);
    }
  }

  /** Sends the cluster's queued jobs, if this replica holds its stream. */
  void sendQueued(UUID orgId, UUID clusterId) {
    Optional<AgentSession> held = held(orgId, clusterId);
    if (held.isEmpty()) {
      return;
    }
    for (AgentJob job : jobs.queued(orgId, List.of(clusterId))) {
      send(held.get(), job, true);
    }
  }

  /**
   * The periodic sweep: for the agents held here, answers not yet handed over and queued jobs; for
   * every organization, queued jobs past their deadline (of the kinds that expire unsent) and
   * answers left over a minute.
   */
  void sweep() {
    Map<UUID, List<UUID>> byOrg = new HashMap<>();
    for (AgentSession s : connections.sessions()) {
      if (s.connectedAt() != null && !s.isClosed()) {
        byOrg.computeIfAbsent(s.orgId, k -> new ArrayList<>()).add(s.clusterId);
      }
    }
    Instant now = clock.instant();
    byOrg.forEach(
        (org, clusters) -> {
          handOverPending(jobs.notHandedOver(org, clusters, now.minus(JobHandOver.DEADLINE)));
          for (AgentJob job : jobs.queued(org, clusters)) {
            held(org, job.clusterId()).ifPresent(s -> send(s, job, true));
          }
        });
    expireOverdue(now);
    for (AgentJobMapper.Stale s : jobs.staleReports(now.minus(STALE))) {
      if (!handOver(s.orgId(), s.id())) {
        break;
      }
    }
  }

  private void send(AgentSession session, AgentJob job, boolean claim) {
    JobKind<?> kind = kinds.get(job.kind());
    if (kind == null) {
      log.warn("job {} is of kind {}, which this hub does not know", job.id(), job.kind());
      return;
    }
    Instant now = clock.instant();
    if (job.deadline() != null && now.isAfter(job.deadline())) {
      answerWithout(job, kind.expired(job, true));
      return;
    }
    if (kind.requires() != null && !session.capabilities().contains(kind.requires())) {
      answerWithout(job, "the agent did not announce the " + kind.requires() + " capability");
      return;
    }
    HubMessage message;
    try {
      message = kind.message(job).setCorrelationId(job.ref()).build();
    } catch (JobKind.Refused e) {
      answerWithout(job, e.getMessage());
      return;
    }
    int won =
        claim
            ? jobs.claimSend(job.orgId(), job.id(), now)
            : jobs.markSent(job.orgId(), job.id(), now);
    if (won == 0) {
      return; // Another path sent it, or it was answered or cancelled meanwhile.
    }
    session.send(message);
    kind.sent(job, message, session.clusterId);
  }

  /** Queued jobs of every organization that no agent took before their deadline. */
  private void expireOverdue(Instant now) {
    List<String> expiring =
        kinds.values().stream().filter(JobKind::expiresUnsent).map(JobKind::name).toList();
    if (expiring.isEmpty()) {
      return;
    }
    List<AgentJob> answered =
        tx.execute(
            t -> {
              List<AgentJob> done = new ArrayList<>();
              for (AgentJob job : jobs.overdue(expiring, now)) {
                JobKind<?> kind = kinds.get(job.kind());
                record(job, kind.unanswered(job, kind.expired(job, false)));
                done.add(job);
              }
              return done;
            });
    for (AgentJob job : answered) {
      handOver(job.orgId(), job.id());
    }
  }

  // ---- answers ----------------------------------------------------------------------------

  /** An agent answered a job; record it (once, whichever replica gets it) and hand it over. */
  void onAnswer(AgentSession session, AgentMessage answer) {
    JobKind<?> kind = byAnswer.get(answer.getPayloadCase());
    if (kind == null) {
      return;
    }
    if (kind.requires() != null && !session.capabilities().contains(kind.requires())) {
      throw Status.PERMISSION_DENIED
          .withDescription(
              kind.answer()
                  + " needs the "
                  + kind.requires()
                  + " capability, which this agent did not announce")
          .asRuntimeException();
    }
    String ref = kind.ref(answer);
    if (ref == null || ref.isEmpty() || ref.length() > MAX_REF) {
      log.warn("cluster {} answered a {} job with a malformed id", session.clusterId, kind.name());
      return;
    }
    Optional<UUID> recorded =
        tx.execute(
            t ->
                jobs.takeWaiting(session.orgId, session.clusterId, kind.name(), ref)
                    .map(
                        job -> {
                          record(job, kind.answered(job, answer));
                          return job.id();
                        }));
    if (recorded == null || recorded.isEmpty()) {
      // A repeat (already answered), a cancelled job, or not a job of this cluster.
      log.debug(
          "cluster {} answered {} job {}, which no longer waits",
          session.clusterId,
          kind.name(),
          LogSafe.text(ref));
      return;
    }
    handOver(session.orgId, recorded.get());
  }

  /** The hub answers a job itself, when its agent's answer will not come. */
  private void answerWithout(AgentJob job, String reason) {
    JobKind<?> kind = kinds.get(job.kind());
    Optional<UUID> recorded =
        tx.execute(
            t ->
                jobs.takeWaiting(job.orgId(), job.clusterId(), job.kind(), job.ref())
                    .map(
                        taken -> {
                          record(taken, kind.unanswered(taken, reason));
                          return taken.id();
                        }));
    if (recorded != null && recorded.isPresent()) {
      log.info("{} job {} not sent: {}", job.kind(), LogSafe.text(job.ref()), reason);
      handOver(job.orgId(), recorded.get());
    }
  }

  private void record(AgentJob job, Object value) {
    String json;
    try {
      json = JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the answer of job " + job.id(), e);
    }
    jobs.recordResult(job.orgId(), job.id(), json, clock.instant());
  }

  // ---- hand-over --------------------------------------------------------------------------

  /** Stops at the first answer Temporal still cannot take: the next sweep tries again. */
  private void handOverPending(List<AgentJobMapper.Handle> pending) {
    for (AgentJobMapper.Handle h : pending) {
      if (!handOver(h)) {
        return;
      }
      log.info("{} job {}: its recorded answer reached Temporal", h.kind(), h.id());
    }
  }

  /** False when Temporal could not be reached (the answer stays recorded). */
  private boolean handOver(UUID orgId, UUID jobId) {
    return jobs.handle(orgId, jobId).map(this::handOver).orElse(true);
  }

  private boolean handOver(AgentJobMapper.Handle h) {
    if (h.taskToken() == null && h.workflowId() == null) {
      // A request: the replica that parked it reads the answer from the row.
      jobs.handedOver(h.orgId(), h.id(), clock.instant());
      return true;
    }
    JobKind<?> kind = kinds.get(h.kind());
    if (kind == null) {
      return true; // Another replica, which knows the kind, hands it over.
    }
    Object value;
    try {
      value = JSON.readValue(h.result(), kind.resultType());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot read the recorded answer of job " + h.id(), e);
    }
    JobHandOver.Outcome outcome = handOver.deliver(h, value);
    switch (outcome) {
      case UNREACHABLE -> {
        log.warn(
            "{} job {} was answered, but Temporal could not be reached to take it;"
                + " the answer is kept and handed over again",
            h.kind(),
            h.id());
        jobs.handOverFailed(h.orgId(), h.id());
        return false;
      }
      case GONE ->
          log.warn("{} job {} was answered, but nothing waits for it any more", h.kind(), h.id());
      case DELIVERED -> {}
    }
    jobs.handedOver(h.orgId(), h.id(), clock.instant());
    return true;
  }

  private Optional<AgentSession> held(UUID orgId, UUID clusterId) {
    return connections
        .get(clusterId)
        .filter(s -> s.orgId.equals(orgId) && s.connectedAt() != null && !s.isClosed());
  }
}

package dev.gitopshq.hub.gateway;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.HubMessage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests to an agent whose caller waits for the answer — adapter wiring, reconcile requests,
 * drift checks — on whichever replica the caller runs: the request is parked as a job (its message
 * sealed in the row, since wiring carries deploy tokens), the replica holding the agent's stream
 * sends it and records the answer in the row like every job's, and the asking replica reads it from
 * there. An activity that asks therefore no longer fails on the replicas that do not hold the
 * stream. A caller that stops waiting (its timeout) cancels the job, so no later stream carries it.
 */
final class ParkedRequests {
  private static final Logger log = LoggerFactory.getLogger(ParkedRequests.class);

  /** How often a waiting caller looks for its answer. */
  static final Duration POLL = Duration.ofMillis(100);

  private record Waiting(
      UUID orgId, String kind, String ref, Instant until, CompletableFuture<AgentMessage> answer) {}

  private final AgentJobMapper jobs;
  private final ClusterMapper clusters;
  private final SecretBox box;
  private final JobDispatcher dispatcher;
  private final Clock clock;
  private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();
  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "agent-requests");
            t.setDaemon(true);
            return t;
          });

  ParkedRequests(
      AgentJobMapper jobs,
      ClusterMapper clusters,
      SecretBox box,
      JobDispatcher dispatcher,
      Clock clock) {
    this.jobs = jobs;
    this.clusters = clusters;
    this.box = box;
    this.dispatcher = dispatcher;
    this.clock = clock;
    poller.scheduleWithFixedDelay(
        this::poll, POLL.toMillis(), POLL.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * The kind of job of one request/answer pair, registered with the dispatcher.
   *
   * @param ref the request id in an answer
   */
  JobKind<String> kind(
      String name,
      AgentMessage.PayloadCase answer,
      Function<AgentMessage, String> ref,
      String requires) {
    return new Kind(name, answer, ref, requires);
  }

  /**
   * Parks {@code message} for the cluster's agent and waits up to {@code timeout} for its answer.
   *
   * @return empty when no replica holds a stream of the cluster now, or its agent did not announce
   *     what the kind requires
   */
  Optional<CompletableFuture<AgentMessage>> ask(
      UUID orgId, UUID clusterId, String kind, String ref, HubMessage message, Duration timeout) {
    JobKind<?> k = dispatcher.kind(kind).orElseThrow();
    boolean connected =
        clusters
            .findById(orgId, clusterId)
            .filter(c -> c.connectedReplica() != null)
            .filter(c -> k.requires() == null || c.capabilities().contains(k.requires()))
            .isPresent();
    if (!connected) {
      return Optional.empty();
    }
    Instant now = clock.instant();
    Instant until = now.plus(timeout);
    jobs.parkRequest(
        UUID.randomUUID(),
        orgId,
        clusterId,
        kind,
        ref,
        box.seal(message.toByteArray(), context(kind, ref)),
        until,
        now);
    // Only after parking: a fresh request never reads the answer of an earlier one.
    CompletableFuture<AgentMessage> answer = new CompletableFuture<>();
    waiting.put(key(orgId, kind, ref), new Waiting(orgId, kind, ref, until, answer));
    // At once when the stream is held here; the commit's notification tells any other replica.
    dispatcher.sendQueued(orgId, clusterId);
    return Optional.of(answer);
  }

  private void poll() {
    for (Map.Entry<String, Waiting> e : waiting.entrySet()) {
      Waiting w = e.getValue();
      try {
        Optional<AgentJob> job = jobs.find(w.orgId(), w.kind(), w.ref());
        String result = job.map(AgentJob::result).orElse(null);
        if (result != null) {
          waiting.remove(e.getKey());
          AgentMessage m = decode(result);
          if (m == null) {
            w.answer().completeExceptionally(new TimeoutException("no stream took the request"));
          } else {
            w.answer().complete(m);
          }
        } else if (w.answer().isDone() || clock.instant().isAfter(w.until())) {
          waiting.remove(e.getKey());
          jobs.abandon(w.orgId(), w.kind(), w.ref(), clock.instant());
          w.answer()
              .completeExceptionally(new TimeoutException("the agent did not answer in time"));
        }
      } catch (RuntimeException ex) {
        log.warn("looking for the answer to {} {} failed: {}", w.kind(), w.ref(), ex.toString());
      }
    }
  }

  /** The recorded answer, or null when the hub answered for the agent (deadline, refusal). */
  private static AgentMessage decode(String json) {
    String b64 = json.length() >= 2 ? json.substring(1, json.length() - 1) : "";
    if (b64.isEmpty()) {
      return null;
    }
    try {
      return AgentMessage.parseFrom(Base64.getDecoder().decode(b64));
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      return null;
    }
  }

  private static String key(UUID orgId, String kind, String ref) {
    return orgId + "/" + kind + "/" + ref;
  }

  private static String context(String kind, String ref) {
    return "agent_jobs:" + kind + ":" + ref;
  }

  /** A request kind: the message is the sealed one, the answer is kept as it came. */
  private final class Kind implements JobKind<String> {
    private final String name;
    private final AgentMessage.PayloadCase answer;
    private final Function<AgentMessage, String> ref;
    private final String requires;

    Kind(
        String name,
        AgentMessage.PayloadCase answer,
        Function<AgentMessage, String> ref,
        String requires) {
      this.name = name;
      this.answer = answer;
      this.ref = ref;
      this.requires = requires;
    }

    @Override
    public String requires() {
      return requires;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public AgentMessage.PayloadCase answer() {
      return answer;
    }

    @Override
    public String ref(AgentMessage message) {
      return ref.apply(message);
    }

    @Override
    public Class<String> resultType() {
      return String.class;
    }

    @Override
    public HubMessage.Builder message(AgentJob job) {
      byte[] sealed =
          jobs.payload(job.orgId(), job.id())
              .map(AgentJobMapper.Payload::payload)
              .orElseThrow(() -> new Refused("the request is gone"));
      try {
        return HubMessage.parseFrom(box.open(sealed, context(job.kind(), job.ref()))).toBuilder();
      } catch (InvalidProtocolBufferException | SecretBox.SecretBoxException e) {
        throw new Refused("the request cannot be read");
      }
    }

    @Override
    public String answered(AgentJob job, AgentMessage message) {
      return Base64.getEncoder().encodeToString(message.toByteArray());
    }

    @Override
    public String unanswered(AgentJob job, String reason) {
      return "";
    }

    @Override
    public String expired(AgentJob job, boolean held) {
      return "no stream carried the request before its caller stopped waiting";
    }
  }
}

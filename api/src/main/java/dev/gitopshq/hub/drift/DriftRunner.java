package dev.gitopshq.hub.drift;

import com.google.protobuf.Timestamp;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.drift.DesiredState;
import dev.gitopshq.activities.drift.DriftCheckRow;
import dev.gitopshq.activities.drift.DriftMapper;
import dev.gitopshq.activities.drift.DriftStore;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.CheckDrift;
import dev.gitopshq.agent.v1.DesiredObject;
import dev.gitopshq.agent.v1.DriftReport;
import dev.gitopshq.hub.config.PgListener;
import dev.gitopshq.hub.gateway.AgentGateway;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Runs drift checks on the replica that holds the cluster's agent stream. A check is a row
 * (requested by a deployment, the interval or a person); its insert notifies channel {@value
 * #CHANNEL}, and every {@code gitopshq.drift.sweep} each replica also looks for pending checks of
 * the agents it holds, and asks for an interval check of those not checked within {@code
 * gitopshq.drift.interval}. A check loads the desired objects from the projects' deploy branches
 * (bounded), sends them to the agent, waits for its report and records the findings. One check per
 * cluster runs at a time.
 */
@Component
public class DriftRunner implements SmartLifecycle, PgListener.Channel {
  static final String CHANNEL = "gitopshq_drift";
  private static final Logger log = LoggerFactory.getLogger(DriftRunner.class);

  private final AgentGateway gateway;
  private final DriftMapper mapper;
  private final DriftStore store;
  private final DesiredState desired;
  private final ClusterMapper clusters;
  private final DriftProperties props;
  private final Clock clock;
  private final Set<UUID> running = ConcurrentHashMap.newKeySet();
  private volatile ThreadPoolExecutor workers;
  private volatile ScheduledExecutorService timer;

  public DriftRunner(
      AgentGateway gateway,
      DriftMapper mapper,
      DriftStore store,
      DesiredState desired,
      ClusterMapper clusters,
      DriftProperties props,
      Clock clock) {
    this.gateway = gateway;
    this.mapper = mapper;
    this.store = store;
    this.desired = desired;
    this.clusters = clusters;
    this.props = props;
    this.clock = clock;
  }

  @Override
  public synchronized void start() {
    workers =
        new ThreadPoolExecutor(
            2,
            2,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(100),
            r -> {
              Thread t = new Thread(r, "drift-checks");
              t.setDaemon(true);
              return t;
            });
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "drift-sweep");
              t.setDaemon(true);
              return t;
            });
    long every = Math.max(100, props.sweep().toMillis());
    timer.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void stop() {
    if (timer != null) {
      timer.shutdownNow();
      workers.shutdownNow();
      timer = null;
    }
  }

  @Override
  public boolean isRunning() {
    return timer != null;
  }

  @Override
  public int getPhase() {
    // After the gateway (which starts last but 1024) and stopped before it.
    return Integer.MAX_VALUE - 512;
  }

  @Override
  public String channel() {
    return CHANNEL;
  }

  /** {@code check:<org>:<cluster>}: run the cluster's pending checks now if its stream is here. */
  @Override
  public void onNotification(String payload) {
    String[] p = payload == null ? new String[0] : payload.split(":");
    if (p.length != 3 || !p[0].equals("check")) {
      return;
    }
    try {
      UUID org = UUID.fromString(p[1]);
      UUID cluster = UUID.fromString(p[2]);
      boolean here =
          gateway.heldAgents().stream()
              .anyMatch(a -> a.orgId().equals(org) && a.clusterId().equals(cluster));
      if (here) {
        submit(org, cluster);
      }
    } catch (IllegalArgumentException e) {
      // Not a payload of ours.
    }
  }

  @Override
  public void onListening(boolean listening) {
    // The sweep runs either way; notifications only make it immediate.
  }

  void sweep() {
    try {
      Instant now = clock.instant();
      mapper.requeueStale(now.minus(props.agentTimeout().multipliedBy(2)));
      expireUnreachable(now);
      for (AgentGateway.HeldAgent a : gateway.heldAgents()) {
        if (!a.capabilities().contains(Capabilities.OBSERVE)) {
          continue;
        }
        if (!props.interval().isZero()
            && !props.interval().isNegative()
            && !mapper.recentOrUnfinished(a.orgId(), a.clusterId(), now.minus(props.interval()))) {
          store.request(a.orgId(), a.clusterId(), "interval", "hub");
        }
        submit(a.orgId(), a.clusterId());
      }
    } catch (RuntimeException e) {
      log.warn("drift sweep failed (the next one retries): {}", e.toString());
    }
  }

  /**
   * Checks no replica could run because the cluster's agent stayed away: failed (and audited) once
   * they are {@value #EXPIRY_TIMEOUTS} agent timeouts past due, so nobody waits forever.
   */
  private void expireUnreachable(Instant now) {
    for (DriftCheckRow c :
        mapper.overdue(now.minus(props.agentTimeout().multipliedBy(EXPIRY_TIMEOUTS)))) {
      if (mapper.claim(c.orgId(), c.id(), now) == 1) {
        store.fail(
            c.orgId(),
            c.clusterId(),
            "",
            c.id(),
            "the cluster's agent was not connected with the observe capability");
      }
    }
  }

  static final int EXPIRY_TIMEOUTS = 5;

  private void submit(UUID org, UUID cluster) {
    ThreadPoolExecutor w = workers;
    if (w == null) {
      return;
    }
    try {
      w.execute(() -> runPending(org, cluster));
    } catch (RejectedExecutionException e) {
      // Busy: the next sweep comes back to it.
    }
  }

  private void runPending(UUID org, UUID cluster) {
    if (!running.add(cluster)) {
      return;
    }
    try {
      for (DriftCheckRow c : mapper.pending(org, cluster, clock.instant())) {
        if (mapper.claim(org, c.id(), clock.instant()) == 1) {
          try {
            run(c);
          } catch (RuntimeException e) {
            log.warn("drift check {} of cluster {} failed: {}", c.id(), cluster, e.toString());
            store.fail(org, cluster, "", c.id(), "the hub could not run the check; see its log");
          }
        }
      }
    } catch (RuntimeException e) {
      log.warn("drift checks of cluster {} failed: {}", cluster, e.toString());
    } finally {
      running.remove(cluster);
    }
  }

  private void run(DriftCheckRow check) {
    UUID org = check.orgId();
    UUID clusterId = check.clusterId();
    Optional<ClusterRow> cluster = clusters.findById(org, clusterId);
    if (cluster.isEmpty()) {
      return;
    }
    String name = cluster.get().name();
    DesiredState.Loaded loaded = desired.load(org, clusterId, name);
    if (!loaded.skipped().isEmpty()) {
      log.info(
          "drift check {} of cluster {} leaves out {} file(s) or object(s) over the bounds",
          check.id(),
          clusterId,
          loaded.skipped().size());
    }
    // The agent stops comparing a little before the hub stops waiting, and reports what it has.
    Instant deadline = clock.instant().plus(props.agentTimeout().multipliedBy(3).dividedBy(4));
    CheckDrift.Builder req =
        CheckDrift.newBuilder()
            .setCheckId(check.id().toString())
            .setDeadline(
                Timestamp.newBuilder()
                    .setSeconds(deadline.getEpochSecond())
                    .setNanos(deadline.getNano()));
    for (dev.gitopshq.activities.drift.DesiredObject o : loaded.objects()) {
      req.addObjects(
          DesiredObject.newBuilder()
              .setGroup(o.group())
              .setVersion(o.version())
              .setKind(o.kind())
              .setNamespace(o.namespace())
              .setName(o.name())
              .setManifest(o.manifest()));
    }
    Optional<CompletableFuture<DriftReport>> sent =
        gateway.checkDrift(org, clusterId, req.build(), props.agentTimeout());
    if (sent.isEmpty()) {
      unanswered(
          check, name, loaded, "the cluster's agent is not connected with the observe capability");
      return;
    }
    DriftReport report;
    try {
      report = sent.get().get(props.agentTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException | TimeoutException | CancellationException e) {
      unanswered(
          check,
          name,
          loaded,
          "the agent did not report within " + props.agentTimeout().toSeconds() + " s");
      return;
    }
    DriftStore.Outcome o = store.record(org, clusterId, name, check.id(), loaded.objects(), report);
    log.info(
        "drift check {} of cluster {}: {} objects, {} drifted, {} opened, {} resolved,"
            + " {} not compared",
        check.id(),
        clusterId,
        o.objects(),
        o.drifted(),
        o.opened(),
        o.resolved(),
        o.unknown());
  }

  /**
   * The agent did not answer: the check failed, and every object it should have compared is not
   * compared, with {@code error} as the reason (an open finding stays open).
   */
  private void unanswered(
      DriftCheckRow check, String name, DesiredState.Loaded loaded, String why) {
    store.record(
        check.orgId(),
        check.clusterId(),
        name,
        check.id(),
        loaded.objects(),
        DriftReport.newBuilder().setCheckId(check.id().toString()).setError(why).build());
  }
}

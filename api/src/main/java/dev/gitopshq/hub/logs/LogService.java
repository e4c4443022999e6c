package dev.gitopshq.hub.logs;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.OpenLogStream;
import dev.gitopshq.hub.cluster.LiveAgent;
import dev.gitopshq.hub.gateway.AgentGateway;
import dev.gitopshq.hub.gateway.LiveRequests;
import dev.gitopshq.hub.security.CallerCheck;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.team.Access;
import dev.gitopshq.hub.team.AccessChanged;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import jakarta.annotation.PreDestroy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Opens log sessions through the cluster's agent with the same refusals everywhere (capability,
 * allowed namespaces, connection, limits), watches them for stalled readers and idleness, and
 * audits each one when it ends.
 */
@Service
public class LogService {
  private static final Logger log = LoggerFactory.getLogger(LogService.class);

  private final LiveAgent live;
  private final LiveRequests liveRequests;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final LogsProperties props;
  private final Clock clock;
  private final Map<String, LogSession> open = new ConcurrentHashMap<>();
  private final ScheduledExecutorService watchdog;
  private final ScheduledExecutorService callers;
  private final CallerCheck callerCheck;
  private final Access access;

  /** Audit entries are written off the gRPC and reader threads, in order, with a bounded queue. */
  private final ThreadPoolExecutor auditor =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.SECONDS,
          new ArrayBlockingQueue<>(10_000),
          r -> {
            Thread t = new Thread(r, "log-session-audit");
            t.setDaemon(true);
            return t;
          });

  public LogService(
      LiveAgent live,
      LiveRequests liveRequests,
      AuditLog audit,
      PlatformTransactionManager transactions,
      LogsProperties props,
      Clock clock,
      CallerCheck callerCheck,
      Access access) {
    this.live = live;
    this.access = access;
    this.liveRequests = liveRequests;
    this.audit = audit;
    this.tx = new TransactionTemplate(transactions);
    this.props = props;
    this.clock = clock;
    this.watchdog =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "log-session-watchdog");
              t.setDaemon(true);
              return t;
            });
    long tick = Math.max(100, Math.min(1000, props.stallTimeout().toMillis() / 4));
    watchdog.scheduleWithFixedDelay(this::check, tick, tick, TimeUnit.MILLISECONDS);
    this.callerCheck = callerCheck;
    // Its own thread: a slow database delays this check, never the stall and idle limits.
    this.callers =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "log-session-caller-check");
              t.setDaemon(true);
              return t;
            });
    long recheck = props.recheckInterval().toMillis();
    callers.scheduleWithFixedDelay(this::recheckCallers, recheck, recheck, TimeUnit.MILLISECONDS);
    long accessRecheck = props.accessRecheckInterval().toMillis();
    callers.scheduleWithFixedDelay(
        () -> recheckAccess(null), accessRecheck, accessRecheck, TimeUnit.MILLISECONDS);
  }

  public LogsProperties limits() {
    return props;
  }

  /**
   * Opens a session and waits until the agent has the log open. 403 when the agent lacks
   * diagnostics.read or the namespace is outside its diagnostics.allowedNamespaces, 409 when no hub
   * replica holds its stream, 429 when a limit is reached, 404 when the pod or container does not
   * exist, 504 when the agent does not open it in time, 502 when reading failed.
   */
  public LogSession open(HubPrincipal caller, UUID clusterId, LogRequest request) {
    LiveAgent.Cluster c = cluster(caller, clusterId);
    LiveAgent.requireCapability(c.row(), Capabilities.DIAGNOSTICS_READ);
    if (!live.reachable(c)) {
      throw ApiException.conflict(
          "the agent of cluster "
              + c.row().name()
              + " is not connected to any hub replica; logs are read live");
    }
    LogSession s =
        new LogSession(
            caller.orgId(),
            clusterId,
            c.row().name(),
            caller.actor(),
            request,
            props.windowBytes(),
            clock,
            System::nanoTime);
    s.callerTokenId = caller.tokenId();
    s.caller = caller;
    reserve(s);
    OpenLogStream req =
        OpenLogStream.newBuilder()
            .setSessionId(s.id)
            .setNamespace(request.namespace())
            .setPod(request.pod())
            .setContainer(request.container())
            .setTailLines(request.tailLines())
            .setSinceSeconds(request.sinceSeconds())
            .setTimestamps(request.timestamps())
            .setPrevious(request.previous())
            .setFollow(request.follow())
            .setInitialCreditBytes(props.windowBytes())
            .setMaxLineBytes(props.maxLineBytes())
            .build();
    Optional<AgentGateway.LogHandle> handle;
    try {
      // Attach before sending: the agent may answer before openLogStream returns.
      s.attach(null, this::ended);
      handle = liveRequests.openLogStream(caller.orgId(), clusterId, req, s);
    } catch (AgentGateway.LogRefused refused) {
      open.remove(s.id);
      throw refused.busy
          ? tooMany(refused.getMessage())
          : ApiException.forbidden(refused.getMessage());
    }
    if (handle.isEmpty()) {
      open.remove(s.id);
      throw ApiException.conflict(
          "the agent of cluster "
              + c.row().name()
              + " is not connected to any hub replica; logs are read live");
    }
    s.attach(handle.get(), this::ended);
    boolean opened;
    try {
      opened = s.awaitOpened(props.openTimeout().toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      s.readerGone();
      throw new ApiException(new ApiError(503, "unavailable", "interrupted", null));
    }
    if (!opened) {
      LogSession.End end = s.end();
      if (end == null) {
        s.finish(
            new LogSession.End(
                "timeout",
                "the agent did not open the log within " + props.openTimeout().toSeconds() + " s"),
            true);
        throw new ApiException(new ApiError(504, "agent_timeout", s.end().message(), null));
      }
      throw switch (end.code()) {
        case "not_found" -> new ApiException(new ApiError(404, "not_found", end.message(), null));
        case "forbidden" -> ApiException.forbidden(end.message());
        case "busy" -> tooMany(end.message());
        default -> new ApiException(new ApiError(502, "agent_error", end.message(), null));
      };
    }
    return s;
  }

  /**
   * The cluster: 404 for another organization's, and for one the caller reaches through no grant
   * (the WebSocket is not under the grant interceptor, so the check is here for both transports).
   */
  public LiveAgent.Cluster cluster(HubPrincipal caller, UUID clusterId) {
    LiveAgent.Cluster c = live.cluster(caller.orgId(), clusterId);
    if (access.clusterRole(caller, c.row()).isEmpty()) {
      throw ApiException.notFound("cluster " + clusterId);
    }
    return c;
  }

  /** Sessions open now (for tests and the benchmark). */
  public int openSessions() {
    return open.size();
  }

  private void reserve(LogSession s) {
    synchronized (open) {
      long perCluster = open.values().stream().filter(o -> o.clusterId.equals(s.clusterId)).count();
      if (perCluster >= props.maxPerCluster()) {
        throw tooMany(
            "cluster "
                + s.clusterName
                + " already has "
                + perCluster
                + " open log sessions (the limit is "
                + props.maxPerCluster()
                + "); close one and try again");
      }
      long perUser =
          open.values().stream()
              .filter(o -> o.orgId.equals(s.orgId) && o.actor.id().equals(s.actor.id()))
              .count();
      if (perUser >= props.maxPerUser()) {
        throw tooMany(
            "you already have "
                + perUser
                + " open log sessions (the limit is "
                + props.maxPerUser()
                + "); close one and try again");
      }
      open.put(s.id, s);
    }
  }

  private static ApiException tooMany(String message) {
    return new ApiException(new ApiError(429, "too_many_sessions", message, null));
  }

  /** Runs once per session, on whichever thread ended it: frees its place and audits it. */
  private void ended(LogSession s) {
    if (open.remove(s.id) == null) {
      return;
    }
    try {
      auditor.execute(() -> record(s));
    } catch (RejectedExecutionException e) {
      log.error("log session {} could not be queued for the audit log", s.id);
    }
  }

  private void record(LogSession s) {
    LogSession.End end = s.end();
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("sessionId", s.id);
    d.put("clusterName", s.clusterName);
    d.put("namespace", s.request.namespace());
    d.put("pod", s.request.pod());
    d.put("container", s.request.container());
    d.put("follow", s.request.follow());
    d.put("previous", s.request.previous());
    d.put("tailLines", s.request.tailLines());
    d.put("sinceSeconds", s.request.sinceSeconds());
    d.put("startedAt", s.startedAt.toString());
    d.put("endedAt", String.valueOf(s.endedAt()));
    d.put("bytes", s.deliveredBytes());
    d.put("endReason", end.code());
    d.put(
        "endMessage",
        end.message().length() > 500 ? end.message().substring(0, 500) : end.message());
    try {
      tx.executeWithoutResult(
          st ->
              audit.record(s.orgId, s.actor, "cluster.logs", "cluster", s.clusterId.toString(), d));
    } catch (RuntimeException e) {
      log.error("log session {} could not be audited: {}", s.id, e.toString());
    }
  }

  private void check() {
    long stall = props.stallTimeout().toNanos();
    long idle = props.idleTimeout().toNanos();
    List<LogSession> all = new ArrayList<>(open.values());
    for (LogSession s : all) {
      try {
        s.check(stall, idle);
      } catch (RuntimeException e) {
        log.warn("checking log session {}: {}", s.id, e.toString());
      }
    }
  }

  /**
   * Ends the sessions whose caller may no longer read logs: the token or SSO session was revoked or
   * signed out, it expired, the member was removed, the service account disabled or its
   * clusters:read withdrawn. Asked of the database (one query for every open session) so a
   * revocation on any hub replica ends the streams on all of them within {@code
   * gitopshq.logs.recheck-interval}. The reader gets the reason as the session's last line (HTTP)
   * or its close reason (WebSocket), and the session's audit entry says {@code access_revoked}.
   */
  void recheckCallers() {
    List<LogSession> all = new ArrayList<>(open.values());
    Set<UUID> ids = new HashSet<>();
    for (LogSession s : all) {
      if (s.callerTokenId != null && s.end() == null) {
        ids.add(s.callerTokenId);
      }
    }
    if (ids.isEmpty()) {
      return;
    }
    Map<UUID, String> revoked;
    try {
      revoked = callerCheck.revoked(ids, Permission.CLUSTERS_READ);
    } catch (RuntimeException e) {
      // The database is away: the next tick asks again; requests are refused meanwhile anyway.
      log.warn("checking the callers of open log sessions: {}", e.toString());
      return;
    }
    for (LogSession s : all) {
      String why = s.callerTokenId == null ? null : revoked.get(s.callerTokenId);
      if (why != null) {
        s.finish(new LogSession.End(LogSession.End.ACCESS_REVOKED, "access revoked: " + why), true);
      }
    }
  }

  /**
   * A grant, a team membership or a member's role changed through this replica: the sessions of the
   * organization are checked now, on the caller-check thread, once the change committed (or at once
   * when it ran outside a transaction).
   */
  @TransactionalEventListener(fallbackExecution = true)
  void onAccessChanged(AccessChanged change) {
    try {
      callers.execute(() -> recheckAccess(change.orgId()));
    } catch (RejectedExecutionException e) {
      // The hub is stopping: its sessions end anyway.
    }
  }

  /**
   * Ends the sessions of members to whom their cluster is no longer visible: a grant revoked, a
   * team left, a role lowered, the cluster's labels changed. Each member's role and grants and each
   * cluster's labels are read once per pass (never per log line). Runs every {@code
   * gitopshq.logs.access-recheck-interval}, the bound for changes made through another replica, and
   * at once for the organization of a change made through this one ({@link #onAccessChanged}). The
   * agent is told to stop; the reader gets the reason as the session's last line (HTTP) or close
   * code 4404 as for an unknown cluster (WebSocket); the audit entry says {@code cluster_hidden}.
   *
   * @param orgId only this organization's sessions; null for all
   */
  void recheckAccess(UUID orgId) {
    List<LogSession> all = new ArrayList<>();
    for (LogSession s : open.values()) {
      if (s.caller != null
          && s.caller.isMember()
          && s.end() == null
          && (orgId == null || orgId.equals(s.orgId))) {
        all.add(s);
      }
    }
    if (all.isEmpty()) {
      return;
    }
    Map<UUID, Predicate<Map<String, String>>> reach = new HashMap<>();
    Map<UUID, Optional<Map<String, String>>> labels = new HashMap<>();
    for (LogSession s : all) {
      boolean visible;
      try {
        Optional<Map<String, String>> l =
            labels.computeIfAbsent(s.clusterId, id -> labelsOf(s.orgId, id));
        visible =
            l.isPresent()
                && reach
                    .computeIfAbsent(s.caller.memberId(), m -> access.clustersReachedNow(s.caller))
                    .test(l.get());
      } catch (RuntimeException e) {
        // The database is away: the next pass asks again; new requests are refused meanwhile.
        log.warn("checking the access of open log sessions: {}", e.toString());
        return;
      }
      if (!visible) {
        s.finish(
            new LogSession.End(
                LogSession.End.CLUSTER_HIDDEN,
                "access revoked: cluster " + s.clusterName + " is no longer visible to you"),
            true);
      }
    }
  }

  /** The cluster's labels now; empty when it was deleted. */
  private Optional<Map<String, String>> labelsOf(UUID orgId, UUID clusterId) {
    try {
      Map<String, String> l = live.cluster(orgId, clusterId).row().labels();
      return Optional.of(l == null ? Map.of() : l);
    } catch (ApiException e) {
      return Optional.empty();
    }
  }

  /** Waits for the audit entries of ended sessions (tests). */
  public void flushAudit(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while ((auditor.getActiveCount() > 0 || !auditor.getQueue().isEmpty())
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
  }

  @PreDestroy
  void stop() {
    open.values().forEach(s -> s.finish(new LogSession.End("closed", "the hub is stopping"), true));
    watchdog.shutdownNow();
    callers.shutdownNow();
    auditor.shutdown();
    try {
      auditor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

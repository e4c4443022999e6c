package dev.gitopshq.hub.logs;

import com.google.protobuf.ByteString;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.agent.v1.ClusterAddresses;
import dev.gitopshq.agent.v1.LogStreamEnded;
import dev.gitopshq.hub.gateway.AgentGateway;
import dev.gitopshq.hub.gateway.LogReceiver;
import dev.gitopshq.hub.security.HubPrincipal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One log session on the hub: the bytes the agent sent that the reader has not taken yet (at most
 * one window), the credit the agent gets back as the reader takes them, and how the session ended.
 *
 * <p>The agent's messages arrive on the gRPC thread that serves its whole stream; they are only
 * queued here. The reader (an HTTP response or a WebSocket) takes them on its own thread. A reader
 * that leaves bytes waiting for the stall timeout is cut, and the agent is told to stop, so its
 * backlog never holds memory or the shared stream.
 */
public final class LogSession implements LogReceiver {

  /** How a session ended. {@code code} is stable for clients; {@code message} is for people. */
  public record End(String code, String message) {
    /** The caller's token was revoked, the member removed, ...: the session was cut. */
    public static final String ACCESS_REVOKED = "access_revoked";

    /**
     * The cluster is no longer visible to the caller (a grant revoked, a team left, a role lowered,
     * the cluster's labels changed): the session was cut as if the cluster were unknown.
     */
    public static final String CLUSTER_HIDDEN = "cluster_hidden";

    /** Whether the log simply ended or the reader left: no notice is appended for those. */
    public boolean normal() {
      return code.equals("completed") || code.equals("closed");
    }
  }

  final String id = UUID.randomUUID().toString();
  final UUID orgId;
  final UUID clusterId;
  final String clusterName;
  final Actor actor;
  final LogRequest request;
  final Instant startedAt;

  /**
   * The caller's API token or SSO session, checked again every second while the session runs; null
   * when nothing is to be checked (unit tests).
   */
  volatile UUID callerTokenId;

  /**
   * Who opened the session, to ask again whether the cluster is still visible to them; null when
   * nothing is to be checked (unit tests).
   */
  volatile HubPrincipal caller;

  private final long window;
  private final LongSupplier nanos;
  private final ArrayDeque<ByteString> queue = new ArrayDeque<>();
  private long queued;
  private long received;
  private long delivered;
  private long ungranted;
  private long lastPollNanos;
  private long lastDataNanos;
  private boolean opened;
  private End end;
  private Instant endedAt;
  private boolean readerLeft;
  private boolean over;
  private AgentGateway.LogHandle handle;
  private Consumer<LogSession> onEnd = s -> {};
  private final Clock clock;

  LogSession(
      UUID orgId,
      UUID clusterId,
      String clusterName,
      Actor actor,
      LogRequest request,
      long windowBytes,
      Clock clock,
      LongSupplier nanos) {
    this.orgId = orgId;
    this.clusterId = clusterId;
    this.clusterName = clusterName;
    this.actor = actor;
    this.request = request;
    this.window = windowBytes;
    this.clock = clock;
    this.nanos = nanos;
    this.startedAt = clock.instant();
    this.lastPollNanos = nanos.getAsLong();
    this.lastDataNanos = lastPollNanos;
  }

  /** The gateway's handle, and what to run once when the session ends (limits, audit). */
  synchronized void attach(AgentGateway.LogHandle handle, Consumer<LogSession> onEnd) {
    this.handle = handle;
    this.onEnd = onEnd;
  }

  public String id() {
    return id;
  }

  // ---- from the agent (gRPC thread: never blocks) ---------------------------------------------

  @Override
  public void chunk(boolean isOpen, ByteString data) {
    boolean overrun = false;
    synchronized (this) {
      if (end != null) {
        return;
      }
      if (isOpen) {
        opened = true;
      }
      if (!data.isEmpty()) {
        if (queued + data.size() > window) {
          overrun = true;
        } else {
          queue.add(data);
          queued += data.size();
          received += data.size();
          lastDataNanos = nanos.getAsLong();
        }
      }
      notifyAll();
    }
    if (overrun) {
      finish(new End("failed", "the agent sent more than the session's window"), true);
    }
  }

  @Override
  public void ended(LogStreamEnded e) {
    // The agent keeps the cluster's internal addresses out of its errors; an older or a modified
    // agent might not, and a viewer must not learn the API server's URL either way.
    String message = ClusterAddresses.redact(e.getMessage());
    End end =
        switch (e.getReason()) {
          case COMPLETED -> new End("completed", "the log ended");
          case NOT_FOUND -> new End("not_found", message);
          case FORBIDDEN -> new End("forbidden", message);
          case BUSY -> new End("busy", message);
          case CLOSED -> new End("agent_disconnected", message);
          default -> new End("failed", message.isEmpty() ? "reading the log failed" : message);
        };
    finish(end, false);
  }

  // ---- the reader's side ----------------------------------------------------------------------

  /**
   * Waits until the agent opened the log or the session ended, at most {@code millis}.
   *
   * @return whether the log is open (false: see {@link #end()}, or the wait timed out)
   */
  synchronized boolean awaitOpened(long millis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    while (!opened && end == null) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        return false;
      }
      wait(left);
    }
    return opened;
  }

  /**
   * The next bytes for the reader, waiting up to {@code millis}; null when there are none yet or
   * the session ended (see {@link #end()}: once it is set and this returns null, nothing follows).
   */
  ByteString poll(long millis) throws InterruptedException {
    ByteString next;
    synchronized (this) {
      lastPollNanos = nanos.getAsLong();
      if (queue.isEmpty() && end == null && millis > 0) {
        wait(millis);
        lastPollNanos = nanos.getAsLong();
      }
      next = queue.poll();
      if (next == null) {
        return null;
      }
      queued -= next.size();
    }
    return next;
  }

  /**
   * The reader wrote {@code bytes}: they count as delivered, and come back to the agent as credit
   * once a quarter of the window has been taken (so grants stay few).
   */
  void delivered(int bytes) {
    long grant = 0;
    AgentGateway.LogHandle h;
    synchronized (this) {
      delivered += bytes;
      ungranted += bytes;
      if (end == null && ungranted >= window / 4) {
        grant = ungranted;
        ungranted = 0;
      }
      h = handle;
    }
    if (grant > 0 && h != null) {
      h.grant(grant);
    }
  }

  /**
   * The reader left (closed the connection, or the request ended). A log that had completed is over
   * only now: the reader has taken what it was going to take.
   */
  void readerGone() {
    Consumer<LogSession> then;
    synchronized (this) {
      readerLeft = true;
      if (end == null || over) {
        then = null;
      } else {
        over = true;
        endedAt = clock.instant();
        then = onEnd;
      }
    }
    if (then != null) {
      then.accept(this);
    } else {
      finish(new End("closed", "the reader closed the session"), true);
    }
  }

  /** How it ended; null while it runs. */
  synchronized End end() {
    return end;
  }

  synchronized boolean opened() {
    return opened;
  }

  synchronized long queuedBytes() {
    return queued;
  }

  synchronized long deliveredBytes() {
    return delivered;
  }

  synchronized long receivedBytes() {
    return received;
  }

  synchronized Instant endedAt() {
    return endedAt;
  }

  // ---- limits (the service's watchdog) --------------------------------------------------------

  /**
   * Ends the session when its reader left bytes waiting for {@code stallNanos}, or a follow session
   * saw no log line for {@code idleNanos}.
   *
   * @return whether it ended now
   */
  boolean check(long stallNanos, long idleNanos) {
    End cut = null;
    synchronized (this) {
      if (end != null || !opened) {
        return false;
      }
      long now = nanos.getAsLong();
      if (queued > 0 && now - lastPollNanos > stallNanos) {
        cut =
            new End(
                "reader_too_slow",
                "the reader did not take "
                    + queued
                    + " bytes for "
                    + Duration.ofNanos(stallNanos).toSeconds()
                    + " s; the session was ended (read faster, or ask for less with tailLines)");
      } else if (request.follow() && now - lastDataNanos > idleNanos && queued == 0) {
        cut =
            new End(
                "idle",
                "no log line for "
                    + Duration.ofNanos(idleNanos).toSeconds()
                    + " s; the session was ended");
      }
    }
    if (cut != null) {
      finish(cut, true);
      return true;
    }
    return false;
  }

  /**
   * Ends the session once: the queue is dropped (a cut reader gets no more log, only the notice),
   * the agent is told to stop when the end is the hub's, and {@code onEnd} runs. A completed log
   * that a reader is still taking keeps its queue, and {@code onEnd} waits for {@link
   * #readerGone()}, so the session holds its place until then and its audit counts every byte the
   * reader got.
   */
  void finish(End why, boolean tellAgent) {
    AgentGateway.LogHandle h;
    Consumer<LogSession> then;
    synchronized (this) {
      if (end != null) {
        return;
      }
      end = why;
      endedAt = clock.instant();
      boolean completed = why.code().equals("completed");
      if (!completed) {
        queue.clear();
        queued = 0;
      }
      if (completed && opened && !readerLeft) {
        then = null;
      } else {
        over = true;
        then = onEnd;
      }
      h = handle;
      notifyAll();
    }
    if (tellAgent && h != null) {
      h.close(why.message());
    }
    if (then != null) {
      then.accept(this);
    }
  }
}

package dev.gitopshq.agent.logs;

import com.google.protobuf.ByteString;
import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ClusterAddresses;
import dev.gitopshq.agent.v1.LogChunk;
import dev.gitopshq.agent.v1.LogStreamControl;
import dev.gitopshq.agent.v1.LogStreamEnded;
import dev.gitopshq.agent.v1.OpenLogStream;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.BytesLimitTerminateTimeTailPrettyLoggable;
import io.fabric8.kubernetes.client.dsl.ContainerResource;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import io.fabric8.kubernetes.client.dsl.Loggable;
import io.fabric8.kubernetes.client.dsl.TailPrettyLoggable;
import io.fabric8.kubernetes.client.dsl.TimeTailPrettyLoggable;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's log sessions. Each runs on its own virtual thread, reads the container's log through
 * Fabric8 and sends whole lines to the hub, never more bytes than the hub granted ({@link
 * OpenLogStream#getInitialCreditBytes()} plus every {@link LogStreamControl} grant) and only while
 * the Connect stream is writable, so a slow reader leaves its bytes in the API server's log rather
 * than in this process or on the shared stream.
 */
public final class LogStreams implements AutoCloseable {
  /** How the sessions reach the hub. */
  public interface Outbound {
    /** Sends on the Connect stream; false when no stream is connected. */
    boolean send(AgentMessage message);

    /** Whether the stream takes more without queueing (gRPC's isReady). */
    boolean writable();
  }

  /** At most this many sessions at once on one agent. */
  public static final int MAX_SESSIONS = 128;

  /** A chunk is sent once this many bytes of whole lines are ready (or the log has no more now). */
  static final int CHUNK_BYTES = 32 * 1024;

  static final int MIN_LINE_BYTES = 256;
  static final int MAX_LINE_BYTES = 64 * 1024;

  /** A session that gets no credit for this long is abandoned (the hub cuts slow readers first). */
  static final Duration CREDIT_TIMEOUT = Duration.ofMinutes(2);

  private static final Logger log = LoggerFactory.getLogger(LogStreams.class);

  private final Supplier<KubernetesClient> kube;
  private final Predicate<String> namespaceAllowed;
  private final boolean enabled;
  private final Outbound hub;
  private final int maxSessions;
  private final Duration creditTimeout;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();

  public LogStreams(
      Supplier<KubernetesClient> kube,
      Predicate<String> namespaceAllowed,
      boolean enabled,
      Outbound hub) {
    this(kube, namespaceAllowed, enabled, hub, MAX_SESSIONS, CREDIT_TIMEOUT);
  }

  LogStreams(
      Supplier<KubernetesClient> kube,
      Predicate<String> namespaceAllowed,
      boolean enabled,
      Outbound hub,
      int maxSessions,
      Duration creditTimeout) {
    this.kube = kube;
    this.namespaceAllowed = namespaceAllowed;
    this.enabled = enabled;
    this.hub = hub;
    this.maxSessions = maxSessions;
    this.creditTimeout = creditTimeout;
  }

  /** Sessions open now. */
  public int size() {
    return sessions.size();
  }

  /** The hub opened a session. Returns at once; the session runs on its own thread. */
  public void open(OpenLogStream req) {
    String id = req.getSessionId();
    if (id.isEmpty() || id.length() > 64) {
      return;
    }
    if (!enabled) {
      ended(id, LogStreamEnded.Reason.FORBIDDEN, "the diagnostics.read capability is off", 0);
      return;
    }
    if (!namespaceAllowed.test(req.getNamespace())) {
      ended(
          id,
          LogStreamEnded.Reason.FORBIDDEN,
          "namespace "
              + req.getNamespace()
              + " is outside the agent's diagnostics.allowedNamespaces",
          0);
      return;
    }
    Session s = new Session(req);
    synchronized (sessions) {
      if (sessions.size() >= maxSessions) {
        ended(
            id,
            LogStreamEnded.Reason.BUSY,
            "the agent already serves " + maxSessions + " log sessions",
            0);
        return;
      }
      if (sessions.putIfAbsent(id, s) != null) {
        return;
      }
    }
    Thread.ofVirtual().name("gitopshq-logs-" + id).start(s::run);
  }

  /** The hub granted credit or closed a session. */
  public void control(LogStreamControl c) {
    Session s = sessions.get(c.getSessionId());
    if (s == null) {
      return;
    }
    if (c.getClose()) {
      s.stop("closed by the hub: " + Redactor.redact(c.getReason()));
    } else if (c.getGrantBytes() > 0) {
      s.grant(c.getGrantBytes());
    }
  }

  /** Ends every session (the agent stops). */
  @Override
  public void close() {
    sessions.values().forEach(s -> s.stop("agent shutting down"));
  }

  private void ended(String id, LogStreamEnded.Reason reason, String message, long bytes) {
    hub.send(
        AgentMessage.newBuilder()
            .setCorrelationId(id)
            .setLogStreamEnded(
                LogStreamEnded.newBuilder()
                    .setSessionId(id)
                    .setReason(reason)
                    .setMessage(message)
                    .setBytes(bytes))
            .build());
  }

  /** One session: its credit, its watch, and its thread's loop. */
  private final class Session {
    private final OpenLogStream req;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition credited = lock.newCondition();
    private long credit;
    private volatile boolean stopped;
    private volatile String stopReason;
    private volatile Closeable watch;
    private long sent;
    private boolean opened;

    Session(OpenLogStream req) {
      this.req = req;
      this.credit = Math.max(0, req.getInitialCreditBytes());
    }

    void grant(long bytes) {
      lock.lock();
      try {
        credit = Math.min(Long.MAX_VALUE / 2, credit + bytes);
        credited.signalAll();
      } finally {
        lock.unlock();
      }
    }

    void stop(String reason) {
      stopReason = reason;
      stopped = true;
      lock.lock();
      try {
        credited.signalAll();
      } finally {
        lock.unlock();
      }
      closeQuietly(watch);
    }

    void run() {
      LogStreamEnded.Reason reason = LogStreamEnded.Reason.COMPLETED;
      String message = "the log ended";
      try {
        InputStream in = openLog();
        if (in == null) {
          return;
        }
        pump(in);
        if (stopped) {
          reason = LogStreamEnded.Reason.CLOSED;
          message = stopReason;
        }
      } catch (Refused r) {
        reason = r.reason;
        message = r.getMessage();
      } catch (KubernetesClientException e) {
        reason = reasonFor(e.getCode());
        message = viewerMessage(e);
      } catch (IOException | RuntimeException e) {
        if (stopped) {
          reason = LogStreamEnded.Reason.CLOSED;
          message = stopReason;
        } else {
          reason = LogStreamEnded.Reason.FAILED;
          message = "reading the log failed: " + clean(e.toString());
        }
      } finally {
        closeQuietly(watch);
        sessions.remove(req.getSessionId());
        ended(req.getSessionId(), reason, message == null ? "" : message, sent);
      }
    }

    /**
     * What the viewer reads when the Kubernetes API refused or failed: the API server's own reason
     * (its Status message), never the client's message, which names the API server's URL; and no
     * address anywhere ({@link ClusterAddresses}).
     */
    static String viewerMessage(KubernetesClientException e) {
      String why = e.getStatus() == null ? null : e.getStatus().getMessage();
      if (why != null && !why.isBlank()) {
        return "the Kubernetes API answered " + e.getCode() + ": " + clean(why);
      }
      return e.getCode() > 0
          ? "the Kubernetes API answered " + e.getCode()
          : "the Kubernetes API could not be reached";
    }

    /** Text from elsewhere, without tokens and addresses. */
    private static String clean(String text) {
      return ClusterAddresses.redact(Redactor.redact(text));
    }

    /** Opens the log, or throws Refused; null when the session was stopped meanwhile. */
    private InputStream openLog() {
      KubernetesClient client = kube.get();
      Pod pod = client.pods().inNamespace(req.getNamespace()).withName(req.getPod()).get();
      if (pod == null) {
        throw new Refused(
            LogStreamEnded.Reason.NOT_FOUND,
            "pod " + req.getNamespace() + "/" + req.getPod() + " not found");
      }
      String container = req.getContainer();
      var containers = pod.getSpec().getContainers().stream().map(Container::getName).toList();
      if (container.isEmpty()) {
        if (containers.isEmpty()) {
          throw new Refused(LogStreamEnded.Reason.NOT_FOUND, "the pod has no containers");
        }
        container = containers.get(0);
      } else if (!containers.contains(container)) {
        throw new Refused(
            LogStreamEnded.Reason.NOT_FOUND,
            "pod "
                + req.getNamespace()
                + "/"
                + req.getPod()
                + " has no container "
                + container
                + " (it has "
                + String.join(", ", containers)
                + ")");
      }
      ContainerResource c =
          client
              .pods()
              .inNamespace(req.getNamespace())
              .withName(req.getPod())
              .inContainer(container);
      BytesLimitTerminateTimeTailPrettyLoggable a = req.getTimestamps() ? c.usingTimestamps() : c;
      TimeTailPrettyLoggable b = req.getPrevious() ? a.terminated() : a;
      TailPrettyLoggable t =
          req.getSinceSeconds() > 0
              ? b.sinceSeconds((int) Math.min(Integer.MAX_VALUE, req.getSinceSeconds()))
              : b;
      Loggable l =
          req.getTailLines() > 0
              ? t.tailingLines((int) Math.min(Integer.MAX_VALUE, req.getTailLines()))
              : t;
      InputStream in;
      if (req.getFollow()) {
        LogWatch w = l.watchLog();
        watch = w;
        in = w.getOutput();
      } else {
        in = l.getLogInputStream();
        watch = in;
      }
      if (stopped) {
        return null;
      }
      return in;
    }

    private void pump(InputStream in) throws IOException {
      int maxLine =
          Math.max(
              MIN_LINE_BYTES,
              Math.min(
                  MAX_LINE_BYTES, req.getMaxLineBytes() > 0 ? req.getMaxLineBytes() : 16 * 1024));
      LineFramer framer = new LineFramer(maxLine);
      ByteArrayOutputStream ready = new ByteArrayOutputStream(CHUNK_BYTES + maxLine + 64);
      byte[] buf = new byte[8192];
      // The first message says the log is readable, even when it has nothing yet.
      send(new byte[0]);
      while (!stopped) {
        if (ready.size() >= CHUNK_BYTES || (ready.size() > 0 && in.available() == 0)) {
          if (!send(ready.toByteArray())) {
            return;
          }
          ready.reset();
        }
        int n = in.read(buf);
        if (n < 0) {
          break;
        }
        int off = 0;
        while (off < n && !stopped) {
          // Feed at most what keeps the ready buffer within one chunk and one line.
          int take = Math.min(n - off, Math.max(1, CHUNK_BYTES - ready.size()));
          framer.feed(buf, off, take, ready);
          off += take;
          if (ready.size() >= CHUNK_BYTES) {
            if (!send(ready.toByteArray())) {
              return;
            }
            ready.reset();
          }
        }
      }
      if (!stopped) {
        framer.finish(ready);
        if (ready.size() > 0) {
          send(ready.toByteArray());
        }
      }
    }

    /** Waits for credit and a writable stream, then sends; false when the session must end. */
    private boolean send(byte[] data) {
      long deadline = System.nanoTime() + creditTimeout.toNanos();
      lock.lock();
      try {
        while (!stopped && credit < data.length) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            stop("no credit from the hub within " + creditTimeout.toSeconds() + " s");
            return false;
          }
          credited.awaitNanos(left);
        }
        if (stopped) {
          return false;
        }
        credit -= data.length;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stop("interrupted");
        return false;
      } finally {
        lock.unlock();
      }
      // Other sessions, heartbeats and results share the stream: wait while it is backed up.
      while (!stopped && !hub.writable()) {
        if (System.nanoTime() > deadline) {
          stop("the hub stream stayed backed up for " + creditTimeout.toSeconds() + " s");
          return false;
        }
        try {
          TimeUnit.MILLISECONDS.sleep(5);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          stop("interrupted");
          return false;
        }
      }
      LogChunk.Builder chunk =
          LogChunk.newBuilder().setSessionId(req.getSessionId()).setData(ByteString.copyFrom(data));
      if (!opened) {
        chunk.setOpened(true);
        opened = true;
      }
      boolean ok =
          !stopped
              && hub.send(
                  AgentMessage.newBuilder()
                      .setCorrelationId(req.getSessionId())
                      .setLogChunk(chunk)
                      .build());
      if (!ok && !stopped) {
        stop("the hub stream is gone");
      }
      if (ok) {
        sent += data.length;
      }
      return ok;
    }
  }

  private static LogStreamEnded.Reason reasonFor(int httpCode) {
    return switch (httpCode) {
      case 404, 400 -> LogStreamEnded.Reason.NOT_FOUND;
      case 401, 403 -> LogStreamEnded.Reason.FORBIDDEN;
      default -> LogStreamEnded.Reason.FAILED;
    };
  }

  private static void closeQuietly(Closeable c) {
    if (c != null) {
      try {
        c.close();
      } catch (IOException | RuntimeException e) {
        log.debug("closing a log watch: {}", e.toString());
      }
    }
  }

  /** A session the agent refuses before reading anything. */
  private static final class Refused extends RuntimeException {
    final LogStreamEnded.Reason reason;

    Refused(LogStreamEnded.Reason reason, String message) {
      super(message, null, false, false);
      this.reason = reason;
    }
  }
}

package dev.gitopshq.hub.gateway;

import dev.gitopshq.agent.v1.LogStreamEnded;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The log sessions riding on this replica's agent streams, by session id. Messages count only from
 * the stream the session was opened on; when that stream ends, so do its sessions.
 */
final class LogRoutes {
  /** At most this many log sessions on one replica, whatever the per-cluster limits say. */
  static final int MAX_ROUTES = 2_000;

  record Route(AgentSession stream, LogReceiver receiver) {}

  private final Map<String, Route> routes = new ConcurrentHashMap<>();

  /** False when the replica already carries {@link #MAX_ROUTES} sessions. */
  boolean add(String sessionId, AgentSession stream, LogReceiver receiver) {
    synchronized (routes) {
      if (routes.size() >= MAX_ROUTES) {
        return false;
      }
      return routes.putIfAbsent(sessionId, new Route(stream, receiver)) == null;
    }
  }

  /** The session's receiver, if the session was opened on this stream. */
  LogReceiver find(AgentSession stream, String sessionId) {
    Route r = routes.get(sessionId);
    return r != null && r.stream() == stream ? r.receiver() : null;
  }

  /** Forgets the session; its receiver if it was open on this stream. */
  LogReceiver remove(AgentSession stream, String sessionId) {
    Route r = routes.get(sessionId);
    if (r == null || r.stream() != stream) {
      return null;
    }
    return routes.remove(sessionId, r) ? r.receiver() : null;
  }

  void forget(String sessionId) {
    routes.remove(sessionId);
  }

  /** Ends every session of a stream that ended, telling each receiver why. */
  void streamEnded(AgentSession stream, String why) {
    List<Map.Entry<String, Route>> ended =
        routes.entrySet().stream().filter(e -> e.getValue().stream() == stream).toList();
    for (Map.Entry<String, Route> e : ended) {
      if (routes.remove(e.getKey(), e.getValue())) {
        e.getValue()
            .receiver()
            .ended(
                LogStreamEnded.newBuilder()
                    .setSessionId(e.getKey())
                    .setReason(LogStreamEnded.Reason.CLOSED)
                    .setMessage(why)
                    .build());
      }
    }
  }

  int size() {
    return routes.size();
  }
}

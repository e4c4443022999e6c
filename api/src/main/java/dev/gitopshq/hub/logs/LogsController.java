package dev.gitopshq.hub.logs;

import com.google.protobuf.ByteString;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v2/clusters/{id}/logs}: a container's log as chunked {@code text/plain}, first
 * the tail, then (with {@code follow=true}) new lines until the reader disconnects or a limit ends
 * the session. Without follow it is a download of the current log. Errors before the first byte are
 * the usual JSON errors; an abnormal end after it is one last line starting with {@code
 * [gitopshq]}.
 */
@RestController
public class LogsController {
  /** The notice line that ends a session cut by the hub, the agent or a limit. */
  static final String NOTICE_PREFIX = "\n[gitopshq] log session ended: ";

  private final LogService logs;

  public LogsController(LogService logs) {
    this.logs = logs;
  }

  @GetMapping(value = "/api/v2/clusters/{id}/logs", produces = "text/plain")
  void logs(
      @PathVariable UUID id,
      @RequestParam(required = false) String namespace,
      @RequestParam(required = false) String pod,
      @RequestParam(required = false) String container,
      @RequestParam(required = false) Long tailLines,
      @RequestParam(required = false) Long sinceSeconds,
      @RequestParam(defaultValue = "false") boolean timestamps,
      @RequestParam(defaultValue = "false") boolean previous,
      @RequestParam(defaultValue = "false") boolean follow,
      HttpServletResponse response)
      throws IOException {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    // Another organization's cluster is a 404 whatever the parameters say.
    logs.cluster(caller, id);
    LogRequest request =
        LogRequest.of(
            namespace, pod, container, tailLines, sinceSeconds, timestamps, previous, follow);
    LogSession session = logs.open(caller, id, request);
    response.setStatus(200);
    response.setContentType("text/plain;charset=UTF-8");
    response.setHeader("Cache-Control", "no-store");
    response.setHeader("X-Content-Type-Options", "nosniff");
    response.setHeader("X-GitOpsHQ-Log-Session", session.id());
    if (!follow) {
      response.setHeader(
          "Content-Disposition",
          "attachment; filename=\""
              + request.pod()
              + (request.container().isEmpty() ? "" : "-" + request.container())
              + ".log\"");
    }
    try {
      OutputStream out = response.getOutputStream();
      response.flushBuffer();
      pump(session, out::write, out::flush, true);
    } finally {
      session.readerGone();
    }
  }

  /** Where a session's bytes go: an HTTP response or a WebSocket. */
  interface Sink {
    void write(byte[] bytes) throws IOException;
  }

  interface Flush {
    void flush() throws IOException;
  }

  /**
   * Moves the session's bytes to the reader until it ends; with {@code notice} an abnormal end is
   * written as a last notice line. IOException: the reader is gone.
   */
  static void pump(LogSession session, Sink sink, Flush flush, boolean notice) throws IOException {
    try {
      while (true) {
        ByteString next = session.poll(1_000);
        if (next != null) {
          sink.write(next.toByteArray());
          flush.flush();
          session.delivered(next.size());
          continue;
        }
        LogSession.End end = session.end();
        if (end != null && session.queuedBytes() == 0) {
          if (notice && !end.normal()) {
            sink.write((NOTICE_PREFIX + end.message() + "\n").getBytes(StandardCharsets.UTF_8));
            flush.flush();
          }
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

// The web UI's side of GET /api/v2/clusters/{id}/logs/ws. The bearer token travels as the
// WebSocket subprotocol "bearer.<token>" next to "gitopshq.logs.v1" (a browser cannot set headers
// on a handshake), so it never appears in the URL or an access log.
import { getToken, query } from "../../api/client";

export const LOG_PROTOCOL = "gitopshq.logs.v1";

export interface LogParams {
  namespace: string;
  pod: string;
  container?: string;
  tailLines?: number;
  timestamps?: boolean;
  follow?: boolean;
}

export interface LogHandlers {
  onOpened?: (sessionId: string) => void;
  onData: (text: string) => void;
  /** The session ended: `reason` is the hub's code (completed, closed, reader_too_slow, idle, …). */
  onEnded: (reason: string, message: string) => void;
  /** It could not start (403, 404, 409, 429, …) or the connection broke (status 0). */
  onError: (status: number, message: string) => void;
}

export function logSocketUrl(clusterId: string, p: LogParams): string {
  const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
  const q = query({
    namespace: p.namespace,
    pod: p.pod,
    container: p.container || undefined,
    tailLines: p.tailLines,
    timestamps: p.timestamps ? "true" : undefined,
    follow: p.follow ? "true" : undefined,
  });
  return `${proto}//${window.location.host}/api/v2/clusters/${encodeURIComponent(clusterId)}/logs/ws${q}`;
}

/** Ends that mean the caller may no longer read this log: reconnecting would not help. */
export const ACCESS_ENDS = ["access_revoked", "cluster_hidden"];

/** Opens a log session; returns the function that ends it. */
export function openLogSocket(clusterId: string, p: LogParams, h: LogHandlers): () => void {
  const token = getToken() ?? "";
  const ws = new WebSocket(logSocketUrl(clusterId, p), [LOG_PROTOCOL, `bearer.${token}`]);
  ws.binaryType = "arraybuffer";
  const decoder = new TextDecoder();
  let done = false;
  let opened = false;
  ws.onmessage = (ev: MessageEvent) => {
    if (typeof ev.data === "string") {
      let m: { type?: string; sessionId?: string; reason?: string; message?: string; status?: number };
      try {
        m = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (m.type === "opened") {
        opened = true;
        h.onOpened?.(m.sessionId ?? "");
      } else if (m.type === "ended") {
        done = true;
        h.onEnded(m.reason ?? "closed", m.message ?? "");
      } else if (m.type === "error") {
        done = true;
        h.onError(m.status ?? 0, m.message ?? "the log session could not start");
      }
      return;
    }
    h.onData(decoder.decode(new Uint8Array(ev.data as ArrayBuffer), { stream: true }));
  };
  ws.onclose = (ev: CloseEvent) => {
    if (done) return;
    done = true;
    // Close codes the hub chose, for when its "ended" or "error" message did not arrive: 1008 the
    // caller's token, session or membership was revoked (the reason says which), 4404 after the
    // session opened the cluster is no longer visible to the caller (a grant revoked, a team left),
    // 4000 + status a refusal. None of these reconnects; only a broken connection (status 0) may.
    if (ev.code === 1000) h.onEnded("closed", "");
    else if (opened && ev.code === 1008) h.onEnded("access_revoked", ev.reason || "access revoked");
    else if (opened && ev.code === 4404)
      h.onEnded("cluster_hidden", "access revoked: this cluster is no longer visible to you");
    else if (ev.code === 1008) h.onError(403, ev.reason || "access revoked");
    else if (ev.code > 4000 && ev.code < 5000) h.onError(ev.code - 4000, ev.reason || "the log session was refused");
    else h.onError(0, "the connection to the hub closed (" + ev.code + ")");
  };
  return () => {
    done = true;
    ws.close(1000);
  };
}

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { parse } from "yaml";
import { api, query } from "../../api/client";
import type { Cluster, Schemas, With } from "../../api/types";
import { Button, inputClass } from "../../components/Button";
import { Empty } from "../../components/States";
import type { Inventory, Resource } from "../InventoryTab";
import { ACCESS_ENDS, openLogSocket, type LogParams } from "./logSocket";
import { createLogTerminal, type LogTerminal } from "./terminal";
import { queryKeys } from "../../api/keys";

/** The download buffer keeps at most this many lines (the oldest go first). */
export const MAX_BUFFER_LINES = 50_000;
/**
 * A session that broke because the agent's hub replica went away reconnects by itself once the
 * agent is connected again (its `connectedAt` changed), waiting at most this long for it.
 */
export const RECONNECT_WAIT_MS = 60_000;
/**
 * When the socket itself broke (the replica serving it went away) and the agent's connection did
 * not change, the agent is still there: reconnect after at most this long.
 */
export const SOCKET_RECONNECT_WAIT_MS = 5_000;
const RECONNECT_POLL_MS = 1_000;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\S+ /;

type State =
  | { kind: "idle" }
  | { kind: "connecting" }
  | { kind: "streaming" }
  | { kind: "reconnecting"; message: string }
  | { kind: "ended"; reason: string; message: string }
  | { kind: "error"; status: number; message: string };

/**
 * The Log Streaming tab: namespace → pod → container, then the tail and new lines in an xterm.js
 * terminal over the hub's log WebSocket. Lines always arrive with their timestamps, so the toggle
 * only changes what is shown; pause keeps receiving into the (bounded) buffer and shows it on
 * resume; the download is the buffer as it is shown. A session that breaks because a hub replica
 * went away reconnects by itself once the agent is connected again (new lines only).
 */
export function LogsTab({ cluster }: { cluster: Cluster }) {
  const [namespace, setNamespace] = useState("");
  const [pod, setPod] = useState("");
  const [container, setContainer] = useState("");
  const [tailLines, setTailLines] = useState(500);
  const [timestamps, setTimestamps] = useState(false);
  const [follow, setFollow] = useState(true);
  const [paused, setPaused] = useState(false);
  const [search, setSearch] = useState("");
  const [state, setState] = useState<State>({ kind: "idle" });
  const [lineCount, setLineCount] = useState(0);

  const termEl = useRef<HTMLDivElement>(null);
  const term = useRef<LogTerminal | null>(null);
  const close = useRef<(() => void) | null>(null);
  const lines = useRef<string[]>([]);
  const partial = useRef("");
  const shown = useRef(0);
  // What the socket's callbacks read of the view's settings, as of the last render.
  const view = useRef({ timestamps, follow, paused });
  useLayoutEffect(() => {
    view.current = { timestamps, follow, paused };
  });
  const searchEl = useRef<HTMLInputElement>(null);

  const diagnostics = cluster.capabilities?.includes("diagnostics.read") ?? false;
  const inventory = useQuery({
    queryKey: queryKeys.inventory(cluster.id),
    queryFn: () => api<Inventory>(`/clusters/${cluster.id}/inventory`),
    enabled: diagnostics,
  });
  const pods = useQuery({
    queryKey: queryKeys.pods(cluster.id, namespace),
    queryFn: () =>
      api<Omit<Schemas["ResourcePage"], "items"> & { items: Resource[] }>(
        `/clusters/${cluster.id}/resources${query({ namespace, kind: "Pod", limit: 500 })}`,
      ),
    enabled: diagnostics && namespace !== "",
  });
  const detail = useQuery({
    queryKey: queryKeys.pod(cluster.id, namespace, pod),
    queryFn: () =>
      api<With<Schemas["Detail"], "yaml">>(
        `/clusters/${cluster.id}/resources/core/v1/Pod/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}`,
      ),
    enabled: diagnostics && pod !== "",
  });
  const containers = containerNames(detail.data?.yaml);

  const display = useCallback((line: string) => (view.current.timestamps ? line : line.replace(TIMESTAMP, "")), []);

  /** Writes the buffered lines not shown yet. */
  const flush = useCallback(() => {
    const t = term.current;
    if (!t || view.current.paused) return;
    const fresh = lines.current.slice(shown.current);
    shown.current = lines.current.length;
    if (fresh.length) t.write(fresh.map((l) => display(l) + "\n").join(""), view.current.follow);
  }, [display]);

  /** Rewrites the whole buffer (the timestamps toggle). */
  const redraw = useCallback(() => {
    const t = term.current;
    if (!t) return;
    t.clear();
    shown.current = 0;
    t.write("\x1b[2J\x1b[H", true);
    flush();
  }, [flush]);

  useEffect(() => {
    if (!termEl.current) return;
    const t = createLogTerminal(termEl.current);
    term.current = t;
    const onResize = () => t.fit();
    window.addEventListener("resize", onResize);
    return () => {
      window.removeEventListener("resize", onResize);
      close.current?.();
      t.dispose();
      term.current = null;
    };
  }, []);

  useEffect(() => {
    redraw();
  }, [timestamps, redraw]);

  useEffect(() => {
    if (!paused) flush();
  }, [paused, flush]);

  const stop = () => {
    close.current?.();
    close.current = null;
  };

  const start = () => {
    stop();
    lines.current = [];
    partial.current = "";
    shown.current = 0;
    setLineCount(0);
    term.current?.clear();
    term.current?.write("\x1b[2J\x1b[H", true);
    connect({ namespace, pod, container, tailLines, timestamps: true, follow: true });
  };

  /** The agent's connection as the cluster reports it now ("" when it cannot be read). */
  const agentConnectedAt = () =>
    api<Cluster>(`/clusters/${cluster.id}`).then(
      (c) => (c.status === "Connected" ? (c.connectedAt ?? "") : ""),
      () => "",
    );

  /** Opens a session; one that broke after it opened reconnects by itself (see reconnect). */
  const connect = (params: LogParams) => {
    setState({ kind: "connecting" });
    let opened = false;
    // The agent's connection as this session opens: a reconnect waits for a newer one.
    const seen = agentConnectedAt();
    close.current = openLogSocket(cluster.id, params, {
      onOpened: () => {
        opened = true;
        setState({ kind: "streaming" });
      },
      onData: (text) => {
        const parts = (partial.current + text).split("\n");
        partial.current = parts.pop() ?? "";
        lines.current.push(...parts);
        const over = lines.current.length - MAX_BUFFER_LINES;
        if (over > 0) {
          lines.current.splice(0, over);
          shown.current = Math.max(0, shown.current - over);
        }
        setLineCount(lines.current.length);
        flush();
      },
      onEnded: (reason, message) => {
        close.current = null;
        if (opened && reason === "agent_disconnected") reconnect(params, seen, RECONNECT_WAIT_MS, message);
        else setState({ kind: "ended", reason, message });
      },
      onError: (status, message) => {
        close.current = null;
        if (opened && status === 0) reconnect(params, seen, SOCKET_RECONNECT_WAIT_MS, message);
        else setState({ kind: "error", status, message });
      },
    });
  };

  /**
   * After a break: polls the cluster once a second until its agent is connected again (a
   * `connectedAt` other than the session's), then opens the session again with only new lines
   * (the buffer keeps what came before). Without a new connection within `wait`: a socket that
   * broke reconnects anyway (the agent was elsewhere), a session the agent's replica ended gives
   * up and says so.
   */
  const reconnect = (params: LogParams, seen: Promise<string>, wait: number, why: string) => {
    setState({ kind: "reconnecting", message: why });
    // Polls left (one a second) before the wait is over.
    let left = Math.ceil(wait / RECONNECT_POLL_MS);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let cancelled = false;
    const poll = async () => {
      const [before, now] = await Promise.all([seen, agentConnectedAt()]);
      if (cancelled) return;
      const back = now !== "" && now !== before;
      left--;
      if (back || (left <= 0 && wait === SOCKET_RECONNECT_WAIT_MS)) {
        connect({ ...params, tailLines: 0 });
      } else if (left <= 0) {
        close.current = null;
        setState({
          kind: "error",
          status: 0,
          message: `${why}; the agent did not connect again within ${wait / 1000} s, start again`,
        });
      } else {
        timer = setTimeout(() => void poll(), RECONNECT_POLL_MS);
      }
    };
    timer = setTimeout(() => void poll(), RECONNECT_POLL_MS);
    close.current = () => {
      cancelled = true;
      clearTimeout(timer);
    };
  };

  const download = () => {
    const text = lines.current.map((l) => display(l) + "\n").join("");
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${pod}${container ? "-" + container : ""}.log`;
    a.click();
    URL.revokeObjectURL(url);
  };

  const find = (back = false) => {
    if (!search || !term.current) return;
    if (back) term.current.findPrevious(search);
    else term.current.findNext(search);
  };

  if (!diagnostics) {
    return (
      <Empty>
        The agent of this cluster does not have the diagnostics.read capability, so its logs cannot be read.
      </Empty>
    );
  }

  const streaming = state.kind === "streaming" || state.kind === "connecting" || state.kind === "reconnecting";
  return (
    <div
      className="space-y-3"
      onKeyDown={(e) => {
        if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "f") {
          e.preventDefault();
          searchEl.current?.focus();
        }
      }}
    >
      <div className="flex flex-wrap items-end gap-3">
        <label className="text-sm">
          Namespace
          <select
            aria-label="Namespace"
            className={inputClass}
            value={namespace}
            onChange={(e) => {
              setNamespace(e.target.value);
              setPod("");
              setContainer("");
            }}
          >
            <option value="">Choose…</option>
            {(inventory.data?.namespaces ?? []).map((n) => (
              <option key={n.name} value={n.name}>
                {n.name}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          Pod
          <select
            aria-label="Pod"
            className={inputClass}
            value={pod}
            disabled={!namespace}
            onChange={(e) => {
              setPod(e.target.value);
              setContainer("");
            }}
          >
            <option value="">Choose…</option>
            {(pods.data?.items ?? []).map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          Container
          <select
            aria-label="Container"
            className={inputClass}
            value={container}
            disabled={!pod}
            onChange={(e) => setContainer(e.target.value)}
          >
            <option value="">{containers.length ? "First (" + containers[0] + ")" : "The pod's first"}</option>
            {containers.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          Tail lines
          <input
            aria-label="Tail lines"
            className={inputClass + " w-24"}
            type="number"
            min={0}
            max={100000}
            value={tailLines}
            onChange={(e) => setTailLines(Math.max(0, Math.min(100_000, Number(e.target.value) || 0)))}
          />
        </label>
        {streaming ? (
          <Button onClick={stop}>Stop</Button>
        ) : (
          <Button variant="primary" disabled={!namespace || !pod} onClick={start}>
            Start streaming
          </Button>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <Button onClick={() => setPaused(!paused)} disabled={state.kind === "idle"}>
          {paused ? "Resume" : "Pause"}
        </Button>
        <label className="flex items-center gap-1">
          <input type="checkbox" checked={timestamps} onChange={(e) => setTimestamps(e.target.checked)} /> Timestamps
        </label>
        <label className="flex items-center gap-1">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <input
          ref={searchEl}
          aria-label="Search logs"
          placeholder="Search (Ctrl+F)"
          className="block w-48 rounded border border-slate-300 px-2 py-1.5 text-sm"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") find(e.shiftKey);
          }}
        />
        <Button onClick={() => find(false)} disabled={!search}>
          Find next
        </Button>
        <Button onClick={download} disabled={lineCount === 0}>
          Download
        </Button>
        <span className="text-slate-600" aria-live="polite">
          {status(state, paused, lineCount)}
        </span>
      </div>
      <div
        ref={termEl}
        data-testid="log-terminal"
        tabIndex={0}
        role="region"
        aria-label="Log output"
        className="h-[32rem] w-full overflow-hidden rounded bg-slate-900 p-1"
      />
    </div>
  );
}

function status(s: State, paused: boolean, lines: number): string {
  const count = `${lines} line${lines === 1 ? "" : "s"}`;
  switch (s.kind) {
    case "idle":
      return "Choose a pod and start streaming.";
    case "connecting":
      return "Opening the log…";
    case "streaming":
      return paused ? `Paused (${count}; new lines are kept)` : `Streaming (${count})`;
    case "reconnecting":
      return `Reconnecting when the agent is back: ${s.message} (${count})`;
    case "ended":
      if (ACCESS_ENDS.includes(s.reason)) {
        return `Ended, you may no longer read this log: ${s.message} (${count}). It will not reconnect.`;
      }
      return s.reason === "completed" || s.reason === "closed"
        ? `Stopped (${count})`
        : `Ended: ${s.message} (${count})`;
    case "error":
      return s.message;
  }
}

/** The container names of a Pod's YAML, in order. */
export function containerNames(yaml: string | undefined): string[] {
  if (!yaml) return [];
  try {
    const doc = parse(yaml) as { spec?: { containers?: { name?: string }[] } };
    return (doc?.spec?.containers ?? []).map((c) => c.name ?? "").filter(Boolean);
  } catch {
    return [];
  }
}

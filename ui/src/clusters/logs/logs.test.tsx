import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Cluster } from "../../api/types";
import { setToken } from "../../api/client";
import { fakeHub, ME, renderAt } from "../../test-utils";
import { ClusterPage } from "../ClusterPage";

// The terminal is xterm.js, which needs a canvas; the tab only talks to it through this interface.
const written: string[] = [];
const searches: string[] = [];
vi.mock("./terminal", () => ({
  SCROLLBACK: 10_000,
  createLogTerminal: () => ({
    write: (t: string) => written.push(t),
    clear: () => written.splice(0),
    findNext: (q: string) => (searches.push(q), true),
    findPrevious: (q: string) => (searches.push("prev:" + q), true),
    scrollToBottom: () => {},
    fit: () => {},
    dispose: () => {},
  }),
}));

class FakeSocket {
  static last: FakeSocket | null = null;
  binaryType = "blob";
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
  closedWith: number | null = null;
  constructor(
    public url: string,
    public protocols: string[],
  ) {
    FakeSocket.last = this;
  }
  close(code: number) {
    this.closedWith = code;
  }
  text(m: unknown) {
    act(() => this.onmessage?.({ data: JSON.stringify(m) }));
  }
  bytes(s: string) {
    act(() => this.onmessage?.({ data: new TextEncoder().encode(s).buffer }));
  }
}

const cluster: Cluster = {
  id: "c1",
  name: "demo",
  labels: {},
  status: "Connected",
  capabilities: ["observe", "diagnostics.read"],
  createdAt: "2026-11-01T00:00:00Z",
  environment: "dev",
  provider: "on-prem",
};

const screenText = () => written.join("");

function hub(c: Cluster = cluster) {
  return fakeHub({
    "GET /me": () => ({ json: ME }),
    "GET /clusters/c1": () => ({ json: c }),
    "GET /clusters/c1/inventory": () => ({
      json: {
        connected: true,
        reported: true,
        objects: 2,
        clusterScoped: {},
        namespaces: [{ name: "demo", total: 1, kinds: { Pod: 1 } }],
      },
    }),
    "GET /clusters/c1/resources": () => ({
      json: {
        items: [
          {
            uid: "p",
            group: "",
            version: "v1",
            kind: "Pod",
            namespace: "demo",
            name: "web-1",
            status: "Running",
            health: "Healthy",
            labels: {},
          },
        ],
      },
    }),
    "GET /clusters/c1/resources/core/v1/Pod/demo/web-1": () => ({
      json: { yaml: "kind: Pod\nspec:\n  containers:\n  - name: app\n  - name: sidecar\n" },
    }),
  });
}

async function choose() {
  const user = userEvent.setup();
  renderAt("/clusters/c1/logs", "/clusters/:id/:tab", <ClusterPage />);
  await screen.findByRole("option", { name: "demo" });
  await user.selectOptions(screen.getByLabelText("Namespace"), "demo");
  await screen.findByRole("option", { name: "web-1" });
  await user.selectOptions(screen.getByLabelText("Pod"), "web-1");
  await screen.findByRole("option", { name: "sidecar" });
  await user.selectOptions(screen.getByLabelText("Container"), "sidecar");
  return user;
}

describe("cluster log streaming", () => {
  beforeEach(() => {
    written.splice(0);
    searches.splice(0);
    FakeSocket.last = null;
    vi.stubGlobal("WebSocket", FakeSocket);
    setToken("ghqo_" + "1".repeat(64));
  });
  afterEach(() => vi.unstubAllGlobals());

  it("opens the socket with the token as a subprotocol, shows the tail then new lines, pauses and resumes", async () => {
    hub();
    const user = await choose();
    await user.click(screen.getByRole("button", { name: "Start streaming" }));
    const ws = FakeSocket.last!;
    expect(ws.protocols).toEqual(["gitopshq.logs.v1", "bearer.ghqo_" + "1".repeat(64)]);
    expect(ws.url).toContain("/api/v2/clusters/c1/logs/ws?");
    expect(ws.url).toContain("namespace=demo&pod=web-1&container=sidecar&tailLines=500&timestamps=true&follow=true");
    expect(ws.url).not.toContain("ghqo_");

    ws.text({ type: "opened", sessionId: "s1" });
    ws.bytes("2026-11-26T10:00:00.1Z tail one\n2026-11-26T10:00:01.2Z tail t");
    ws.bytes("wo\n");
    expect(screenText()).toContain("tail one\ntail two\n");
    // Timestamps are hidden until the toggle shows them.
    expect(screenText()).not.toContain("2026-11-26T10:00:00.1Z");
    expect(screen.getByText("Streaming (2 lines)")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Pause" }));
    ws.bytes("2026-11-26T10:00:02Z while paused\n");
    expect(screenText()).not.toContain("while paused");
    expect(screen.getByText("Paused (3 lines; new lines are kept)")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Resume" }));
    expect(screenText()).toContain("while paused\n");

    await user.click(screen.getByLabelText("Timestamps"));
    await waitFor(() => expect(screenText()).toContain("2026-11-26T10:00:00.1Z tail one\n"));

    await user.click(screen.getByRole("button", { name: "Stop" }));
    expect(ws.closedWith).toBe(1000);
  });

  it("searches with Ctrl+F and downloads the buffer as shown", async () => {
    hub();
    const user = await choose();
    await user.click(screen.getByRole("button", { name: "Start streaming" }));
    const ws = FakeSocket.last!;
    ws.text({ type: "opened", sessionId: "s1" });
    ws.bytes("2026-11-26T10:00:00Z GET /api/orders 500\n2026-11-26T10:00:01Z GET / 200\n");

    await user.click(screen.getByTestId("log-terminal"));
    await user.keyboard("{Control>}f{/Control}");
    expect(screen.getByLabelText("Search logs")).toHaveFocus();
    await user.keyboard("500{Enter}");
    expect(searches).toEqual(["500"]);

    let blob: Blob | null = null;
    vi.stubGlobal(
      "URL",
      Object.assign(URL, { createObjectURL: (b: Blob) => ((blob = b), "blob:x"), revokeObjectURL: () => {} }),
    );
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    await user.click(screen.getByRole("button", { name: "Download" }));
    expect(click).toHaveBeenCalled();
    const text = await new Promise<string>((resolve) => {
      const r = new FileReader();
      r.onload = () => resolve(String(r.result));
      r.readAsText(blob!);
    });
    expect(text).toBe("GET /api/orders 500\nGET / 200\n");
  });

  it("reconnects by itself once the agent is back after its hub replica went away, with new lines only", async () => {
    // The cluster as GET /clusters/c1 answers it (serialized on every call): the agent's connection
    // changes after the break.
    const live: Cluster = { ...cluster, connectedAt: "2026-11-26T09:00:00Z" };
    const calls = hub(live);
    const user = await choose();
    await user.click(screen.getByRole("button", { name: "Start streaming" }));
    const first = FakeSocket.last!;
    first.text({ type: "opened", sessionId: "s1" });
    first.bytes("2026-11-26T10:00:00Z before\n");
    await waitFor(() => expect(calls.some((c) => c.path === "/clusters/c1")).toBe(true));

    // The replica holding the agent's stream died: the serving replica ends the session.
    first.text({
      type: "ended",
      reason: "agent_disconnected",
      message: "the hub replica holding the agent's stream went away (UNAVAILABLE)",
    });
    expect(await screen.findByText(/Reconnecting when the agent is back/)).toBeInTheDocument();
    // Still the old connection: no new socket yet.
    await new Promise((r) => setTimeout(r, 1_200));
    expect(FakeSocket.last).toBe(first);

    live.connectedAt = "2026-11-26T10:00:02Z";
    await waitFor(() => expect(FakeSocket.last).not.toBe(first), { timeout: 3_000 });
    const second = FakeSocket.last!;
    expect(second.url).toContain("tailLines=0");
    second.text({ type: "opened", sessionId: "s2" });
    second.bytes("2026-11-26T10:00:03Z after\n");
    expect(screenText()).toContain("before\n");
    expect(screenText()).toContain("after\n");
    expect(screen.getByText("Streaming (2 lines)")).toBeInTheDocument();

    // A socket that closes by itself (its own replica went away) reconnects too.
    act(() => second.onclose?.({ code: 1006 }));
    expect(await screen.findByText(/the connection to the hub closed \(1006\)/)).toBeInTheDocument();
    live.connectedAt = "2026-11-26T10:00:05Z";
    await waitFor(() => expect(FakeSocket.last).not.toBe(second), { timeout: 3_000 });

    await user.click(screen.getByRole("button", { name: "Stop" }));
    expect(FakeSocket.last!.closedWith).toBe(1000);
    // Two polls a second apart on each break, on a busy machine.
  }, 20_000);

  it("says why a session could not start or was ended", async () => {
    hub();
    const user = await choose();
    await user.click(screen.getByRole("button", { name: "Start streaming" }));
    FakeSocket.last!.text({
      type: "error",
      status: 403,
      message: "namespace demo is outside the agent's diagnostics.allowedNamespaces (payments)",
    });
    expect(await screen.findByText(/outside the agent's diagnostics.allowedNamespaces/)).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Start streaming" }));
    FakeSocket.last!.text({ type: "opened", sessionId: "s2" });
    FakeSocket.last!.text({
      type: "ended",
      reason: "reader_too_slow",
      message: "the reader did not take 131072 bytes for 30 s",
    });
    expect(
      await screen.findByText("Ended: the reader did not take 131072 bytes for 30 s (0 lines)"),
    ).toBeInTheDocument();
  });

  it("does not reconnect a session whose access was revoked, and says so", async () => {
    const live: Cluster = { ...cluster, connectedAt: "2026-11-26T09:00:00Z" };
    hub(live);
    const user = await choose();
    await user.click(screen.getByRole("button", { name: "Start streaming" }));
    // The grant was revoked: the hub's ended message, then close 4404 as for an unknown cluster.
    const first = FakeSocket.last!;
    first.text({ type: "opened", sessionId: "s1" });
    first.bytes("2026-11-26T10:00:00Z before\n");
    first.text({
      type: "ended",
      reason: "cluster_hidden",
      message: "access revoked: cluster demo is no longer visible to you",
    });
    act(() => first.onclose?.({ code: 4404, reason: "not_found" }));
    expect(
      await screen.findByText(
        "Ended, you may no longer read this log: access revoked: cluster demo is no longer visible to you (1 line). It will not reconnect.",
      ),
    ).toBeInTheDocument();

    // Only the close arrives (its message was lost): 4404 and 1008 still end it for good.
    for (const [code, reason, shown] of [
      [4404, "not_found", "access revoked: this cluster is no longer visible to you"],
      [1008, "access revoked: token revoked", "access revoked: token revoked"],
    ] as const) {
      await user.click(screen.getByRole("button", { name: "Start streaming" }));
      const ws = FakeSocket.last!;
      ws.text({ type: "opened", sessionId: "s-" + code });
      act(() => ws.onclose?.({ code, reason }));
      expect(await screen.findByText(new RegExp("you may no longer read this log: " + shown))).toBeInTheDocument();
      // The agent connects again meanwhile: still no new socket (a broken one would reconnect in ~1 s).
      live.connectedAt = "2026-11-26T10:00:0" + (code % 10) + "Z";
      await new Promise((r) => setTimeout(r, 2_500));
      expect(FakeSocket.last).toBe(ws);
      expect(screen.queryByText(/Reconnecting/)).toBeNull();
    }
  }, 20_000);

  it("explains that an agent without diagnostics.read has no logs", async () => {
    hub({ ...cluster, capabilities: ["observe"] });
    renderAt("/clusters/c1/logs", "/clusters/:id/:tab", <ClusterPage />);
    expect(await screen.findByText(/does not have the diagnostics.read capability/)).toBeInTheDocument();
    expect(FakeSocket.last).toBeNull();
  });
});

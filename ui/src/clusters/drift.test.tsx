import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Cluster } from "../api/types";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { ClusterPage } from "./ClusterPage";
import { duration, type DriftCheck, type DriftFinding, type DriftFindingDetail } from "./DriftTab";

const cluster: Cluster = {
  id: "c1",
  name: "demo",
  labels: {},
  status: "Connected",
  capabilities: ["observe", "direct.deploy"],
  createdAt: "2026-11-01T00:00:00Z",
  environment: "dev",
  provider: "on-prem",
};

const finding: DriftFinding = {
  id: "f1",
  object: { group: "apps", version: "v1", kind: "Deployment", namespace: "shop", name: "web" },
  severity: "functional",
  state: "drifted",
  open: true,
  differences: 1,
  argoApplication: "",
  firstDetectedAt: new Date(Date.now() - 600_000).toISOString(),
  lastSeenAt: new Date().toISOString(),
  durationSeconds: 600,
};

const detail: DriftFindingDetail = {
  ...finding,
  clusterId: "c1",
  source: {
    projectId: "p1",
    environment: "dev",
    tenant: "acme",
    branch: "deploy/dev",
    path: "demo/acme/web/deployment.yaml",
  },
  differences: [{ path: "spec.replicas", desired: "2", live: "3", severity: "functional" }],
  fieldManager: "gitopshq-agent",
  method: "dry-run-apply",
  resolveCommands: [],
};

describe("cluster drift tab", () => {
  it("lists open findings, filters them, shows the field diff and resolves under approval", async () => {
    setToken("t");
    let commandStatus = "pending_approval";
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1": () => ({ json: cluster }),
      "GET /clusters/c1/drift": () => ({ json: { items: [finding], nextCursor: null } }),
      "GET /clusters/c1/drift/f1": () => ({ json: detail }),
      "POST /clusters/c1/drift/f1/resolve": () => ({ status: 202, json: { id: "cmd-12345678", status: "pending" } }),
      "GET /commands/cmd-12345678": () => ({ json: { id: "cmd-12345678", status: commandStatus, statusDetail: "" } }),
      "POST /clusters/c1/drift/checks": () => ({
        status: 202,
        json: { id: "k1", status: "pending", trigger: "manual", objects: 0, drifted: 0, opened: 0, resolved: 0 },
      }),
      "GET /clusters/c1/drift/checks/k1": () => ({
        json: { id: "k1", status: "completed", trigger: "manual", objects: 4, drifted: 1, opened: 1, resolved: 0 },
      }),
    });
    renderAt("/clusters/c1/drift", "/clusters/:id/:tab", <ClusterPage />);

    const table = await screen.findByRole("table", { name: "Drift findings" });
    expect(within(table).getByText("functional")).toBeInTheDocument();
    expect(within(table).getByText("10m 0s")).toBeInTheDocument();
    expect(calls.some((c) => c.path === "/clusters/c1/drift" && c.query.includes("state=open"))).toBe(true);

    await userEvent.selectOptions(screen.getByLabelText("Severity"), "cosmetic");
    await waitFor(() =>
      expect(calls.some((c) => c.path === "/clusters/c1/drift" && c.query.includes("severity=cosmetic"))).toBe(true),
    );
    await userEvent.type(screen.getByLabelText("Namespace"), "shop");
    await waitFor(() => expect(calls.some((c) => c.query.includes("namespace=shop"))).toBe(true));

    // The filtered list is a new table.
    const filtered = await screen.findByRole("table", { name: "Drift findings" });
    await userEvent.click(within(filtered).getByRole("button", { name: "Deployment shop/web" }));
    const diff = await screen.findByRole("table", { name: "Field differences" });
    expect(within(diff).getByText("spec.replicas")).toBeInTheDocument();
    expect(within(diff).getByText("2")).toBeInTheDocument();
    expect(within(diff).getByText("3")).toBeInTheDocument();

    await userEvent.type(screen.getByLabelText("Reason"), "scaled by hand");
    await userEvent.click(screen.getByRole("button", { name: "Resolve" }));
    await waitFor(() => expect(screen.getByText(/waiting for approval/)).toBeInTheDocument());
    const resolve = calls.find((c) => c.method === "POST" && c.path === "/clusters/c1/drift/f1/resolve");
    expect(resolve?.body).toEqual({ reason: "scaled by hand" });
    commandStatus = "completed";
    await waitFor(() => expect(screen.getByText(/: completed/)).toBeInTheDocument(), { timeout: 4000 });

    await userEvent.click(screen.getByRole("button", { name: "Check now" }));
    await waitFor(
      () => expect(screen.getByText("Checked 4 objects: 1 drifted, 1 new, 0 resolved")).toBeInTheDocument(),
      { timeout: 4000 },
    );
  });

  it("shows the objects the newest check did not compare, with why, apart from drifted and in sync", async () => {
    setToken("t");
    const source = { projectId: "p1", environment: "dev", tenant: "acme", branch: "deploy/dev" };
    const latestCheck: DriftCheck = {
      id: "k0",
      status: "completed",
      trigger: "manual",
      objects: 3,
      drifted: 0,
      opened: 0,
      resolved: 0,
      unknown: 2,
      summary: "3 objects: 0 drifted, 2 not compared",
      finishedAt: new Date().toISOString(),
      notCompared: [
        {
          object: { group: "apps", version: "v1", kind: "Deployment", namespace: "shop", name: "web" },
          source: { ...source, path: "demo/acme/web/deployment.yaml" },
          reason: "the API server answered 400: namespace not specified",
        },
        {
          object: { group: "", version: "v1", kind: "Service", namespace: "shop", name: "web" },
          source: { ...source, path: "demo/acme/web/service.yaml" },
          reason: "the agent did not report this object",
        },
      ],
    };
    const stillOpen = { ...finding, notCompared: "the API server answered 400: namespace not specified" };
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1": () => ({ json: cluster }),
      "GET /clusters/c1/drift": () => ({ json: { items: [stillOpen], nextCursor: null, latestCheck } }),
      "GET /clusters/c1/drift/f1": () => ({ json: { ...detail, notCompared: stillOpen.notCompared } }),
      "POST /clusters/c1/drift/checks": () => ({
        status: 202,
        json: { ...latestCheck, id: "k1", status: "pending", unknown: 0, notCompared: [] },
      }),
      "GET /clusters/c1/drift/checks/k1": () => ({ json: { ...latestCheck, id: "k1" } }),
    });
    renderAt("/clusters/c1/drift", "/clusters/:id/:tab", <ClusterPage />);

    // Not "0 drifted" as if all were in sync: how many were not compared, which, and why.
    const section = await screen.findByRole("region", { name: /2 not compared/ });
    expect(within(section).getByText("unknown")).toBeInTheDocument();
    const unknown = within(section).getByRole("table", { name: "Objects not compared" });
    const rows = within(unknown).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(2);
    expect(within(rows[0]).getByText(/Deployment shop\/web/)).toBeInTheDocument();
    expect(within(rows[0]).getByText("the API server answered 400: namespace not specified")).toBeInTheDocument();
    expect(within(rows[0]).getByText("deploy/dev: demo/acme/web/deployment.yaml")).toBeInTheDocument();
    expect(within(rows[1]).getByText("the agent did not report this object")).toBeInTheDocument();
    expect(screen.getByText(/Newest check .*: 3 objects: 0 drifted, 2 not compared/)).toBeInTheDocument();

    // The open finding of an object not compared stays open, and says so.
    const findings = screen.getByRole("table", { name: "Drift findings" });
    expect(within(findings).getByText("not compared")).toBeInTheDocument();
    await userEvent.click(within(findings).getByRole("button", { name: "Deployment shop/web" }));
    expect(await screen.findByRole("note")).toHaveTextContent(
      "The newest check did not compare this object (the API server answered 400: namespace not specified)",
    );

    await userEvent.click(screen.getByRole("button", { name: "Check now" }));
    await waitFor(
      () =>
        expect(screen.getByText("Checked 3 objects: 0 drifted, 0 new, 0 resolved, 2 not compared")).toBeInTheDocument(),
      { timeout: 4000 },
    );
  });

  it("offers no Resolve to a member who cannot create commands", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: { ...ME, permissions: ["clusters:read"] } }),
      "GET /clusters/c1": () => ({ json: cluster }),
      "GET /clusters/c1/drift": () => ({ json: { items: [finding], nextCursor: null } }),
      "GET /clusters/c1/drift/f1": () => ({ json: detail }),
    });
    renderAt("/clusters/c1/drift", "/clusters/:id/:tab", <ClusterPage />);
    await userEvent.click(await screen.findByRole("button", { name: "Deployment shop/web" }));
    await screen.findByRole("table", { name: "Field differences" });
    expect(screen.queryByRole("button", { name: "Resolve" })).not.toBeInTheDocument();
  });

  it("formats durations", () => {
    expect(duration(42)).toBe("42s");
    expect(duration(3 * 3600 + 120)).toBe("3h 2m");
    expect(duration(3 * 86400)).toBe("3d 0h");
  });
});

import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Cluster } from "../api/types";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { ClustersPage, matches } from "./ClustersPage";
import { REQUESTABLE_COMMAND_TYPE_NAMES } from "../api/commandTypes";
import { CommandsTab, commandBody } from "./CommandsTab";
import { parseLabels } from "./RegisterClusterDialog";
import { OverviewTab } from "./OverviewTab";

const cluster = (over: Partial<Cluster>): Cluster => ({
  id: "c1",
  name: "prod-eu",
  labels: { tier: "production" },
  status: "Connected",
  capabilities: ["observe"],
  createdAt: "2026-11-01T00:00:00Z",
  environment: "production",
  provider: "eks",
  ...over,
});
const none = { q: "", status: "", environment: "", provider: "", label: "" };

describe("clusters", () => {
  it("filters by search, status, environment, provider and label", () => {
    const c = cluster({});
    expect(matches(c, none)).toBe(true);
    expect(matches(c, { ...none, q: "PROD" })).toBe(true);
    expect(matches(c, { ...none, q: "staging" })).toBe(false);
    expect(matches(c, { ...none, status: "Lagging" })).toBe(false);
    expect(matches(c, { ...none, label: "tier:production" })).toBe(true);
    expect(matches(c, { ...none, label: "tier=dev" })).toBe(false);
    expect(matches(c, { ...none, label: "team" })).toBe(false);
    expect(matches(c, { ...none, provider: "gke" })).toBe(false);
  });

  it("filters on the effective labels: the agent's reported ones, a hub label winning", () => {
    const c = cluster({
      labels: { tier: "production" },
      reportedLabels: { tier: "staging", team: "shop" },
      effectiveLabels: { tier: "production", team: "shop" },
    });
    expect(matches(c, { ...none, label: "team=shop" })).toBe(true);
    expect(matches(c, { ...none, label: "tier=staging" })).toBe(false);
    expect(matches(c, { ...none, label: "tier=production" })).toBe(true);
  });

  it("shows the labels set in the hub, those the agent reports and the effective ones", () => {
    setToken("t");
    fakeHub({ "GET /me": () => ({ json: ME }) });
    renderAt(
      "/x",
      "/x",
      <OverviewTab
        cluster={cluster({
          labels: { tier: "production" },
          reportedLabels: { tier: "staging", team: "shop" },
          effectiveLabels: { team: "shop", tier: "production" },
        })}
      />,
    );
    expect(screen.getByText("Labels (set in the hub)").nextSibling).toHaveTextContent("tier=production");
    expect(screen.getByText("Labels reported by the agent").nextSibling).toHaveTextContent("tier=staging, team=shop");
    expect(screen.getByText("Effective labels (selectors and policies)").nextSibling).toHaveTextContent(
      "team=shop, tier=production",
    );
  });

  it("parses labels typed as k=v pairs", () => {
    expect(parseLabels("tier=production, team:platform")).toEqual({ tier: "production", team: "platform" });
  });

  it("builds a scale command with replicas and a break-glass justification", () => {
    const body = commandBody({
      type: "scale",
      namespace: "demo",
      name: "web",
      params: { replicas: "3", revision: "left over from another type" },
      reason: "traffic",
      breakGlass: true,
      justification: "checkout is down for everyone",
    });
    expect(body).toEqual({
      type: "scale",
      target: { namespace: "demo", kind: "Deployment", name: "web" },
      params: { replicas: 3 },
      reason: "traffic",
      breakGlass: { justification: "checkout is down for everyone" },
    });
    const sync = commandBody({
      type: "sync",
      namespace: "argocd",
      name: "app",
      params: { replicas: "", revision: "abc123" },
      reason: "",
      breakGlass: false,
      justification: "",
    });
    expect(sync.target.kind).toBe("Application");
    expect(sync.params).toEqual({ revision: "abc123" });
  });

  it("offers the command types and params command_types.proto declares", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1/commands": () => ({ json: { items: [] } }),
      "POST /clusters/c1/commands": () => ({ status: 202, json: { id: "0f0e0d0c-1111", status: "pending" } }),
    });
    renderAt("/clusters/c1", "/clusters/:id", <CommandsTab cluster={cluster({})} />);
    const type = await screen.findByLabelText("Command type");
    expect(
      within(type)
        .getAllByRole("option")
        .map((o) => o.textContent),
    ).toEqual(REQUESTABLE_COMMAND_TYPE_NAMES);
    expect(within(type).queryByRole("option", { name: "resolve-drift" })).toBeNull();
    const filter = screen.getByLabelText("Type");
    expect(within(filter).getByRole("option", { name: "resolve-drift" })).toBeInTheDocument();

    const replicas = screen.getByLabelText("Replicas");
    expect(replicas).toHaveAttribute("min", "0");
    expect(replicas).toHaveAttribute("max", "1000");
    expect(replicas).toBeRequired();

    await userEvent.selectOptions(type, "rollback");
    expect(screen.queryByLabelText("Replicas")).toBeNull();
    expect(screen.getByLabelText("Argo CD application")).toBeInTheDocument();
    expect(screen.getByLabelText("Revision")).toHaveAttribute("maxLength", "255");
    expect(screen.getByText("Give exactly one of Revision or History id.")).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Namespace"), "argocd");
    await userEvent.type(screen.getByLabelText("Argo CD application"), "demo-app");
    await userEvent.type(screen.getByLabelText("History id"), "4");
    await userEvent.click(screen.getByRole("button", { name: "Request command" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Requested: command 0f0e0d0c (pending)");
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({
      type: "rollback",
      target: { namespace: "argocd", kind: "Application", name: "demo-app" },
      params: { historyId: 4 },
    });
  });

  it("shows every cluster with its status badge, and an empty state when none match", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters": () => ({
        json: {
          items: [
            cluster({ health: { uptime24h: 99.5, heartbeatLatencyMillis: 4 } }),
            cluster({
              id: "c2",
              name: "dev",
              status: "Lagging",
              environment: "dev",
              versionDrift: true,
              agentVersion: "0.0.9",
            }),
            cluster({ id: "c3", name: "old", agentVersion: "1.0.0", versionStatus: "unsupported" }),
          ],
        },
      }),
    });
    renderAt("/clusters", "/clusters", <ClustersPage />);
    const table = await screen.findByRole("table");
    expect(within(table).getByText("prod-eu", { selector: "a" })).toBeInTheDocument();
    expect(within(table).getByText("Lagging")).toBeInTheDocument();
    expect(within(table).getByText("behind")).toBeInTheDocument();
    expect(within(table).getByText("unsupported")).toBeInTheDocument();
    expect(within(table).getByText("99.5 %")).toBeInTheDocument();
    expect(within(table).getByText(/· 4 ms/)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Search"), "nothing-like-this");
    expect(await screen.findByText("No cluster matches these filters.")).toBeInTheDocument();
  });

  it("shows the registration token once with the install command", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters": () => ({ json: { items: [] } }),
      "POST /clusters": () => ({
        status: 201,
        json: {
          cluster: cluster({ status: "Pending" }),
          registrationToken: "ghqa_reg_" + "a".repeat(64),
          expiresAt: new Date(Date.now() + 3600_000).toISOString(),
          installCommand: "helm upgrade --install gitopshq-agent …",
        },
      }),
    });
    renderAt("/clusters", "/clusters", <ClustersPage />);
    await userEvent.click(await screen.findByRole("button", { name: "Register cluster" }));
    await userEvent.type(screen.getByLabelText("Name"), "prod-eu");
    await userEvent.type(screen.getByLabelText("Labels"), "tier=production");
    await userEvent.click(screen.getByRole("button", { name: "Register" }));
    expect(await screen.findByDisplayValue(/^ghqa_reg_a{64}$/)).toBeInTheDocument();
    expect(screen.getByText("helm upgrade --install gitopshq-agent …")).toBeInTheDocument();
    expect(screen.getByLabelText("time left").textContent).toMatch(/^(59|60):\d\d$/);
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({ name: "prod-eu", labels: { tier: "production" } });
  });
});

describe("hub acceptance", () => {
  const waiting = cluster({
    id: "c9",
    name: "edge-1",
    status: "PendingAcceptance",
    agentVersion: "0.1.0",
    acceptance: {
      state: "pending",
      agentConnected: true,
      apiServerSha256: "ab".repeat(32),
      nodeCount: 7,
      kubernetesVersion: "v1.31.4",
      agentVersion: "0.1.0",
    },
  });

  it("lists a waiting cluster as Pending acceptance with its identity, and an admin accepts it", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters": () => ({ json: { items: [waiting, cluster({})] } }),
      "POST /clusters/c9/accept": () => ({ json: { ...waiting, status: "Connected" } }),
    });
    renderAt("/clusters", "/clusters", <ClustersPage />);
    const table = await screen.findByRole("table");
    expect(within(table).getByText("Pending acceptance")).toBeInTheDocument();
    expect(within(table).getByText("Kubernetes v1.31.4 · 7 nodes · agent 0.1.0")).toBeInTheDocument();
    expect(within(table).getAllByRole("button", { name: /^Accept / })).toHaveLength(1);
    await userEvent.click(within(table).getByRole("button", { name: "Accept edge-1" }));
    expect(calls.some((c) => c.method === "POST" && c.path === "/clusters/c9/accept")).toBe(true);
  });

  it("shows no Accept or Reject to someone who may not manage clusters", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: { ...ME, role: "viewer", permissions: ["clusters:read"] } }),
      "GET /clusters": () => ({ json: { items: [waiting] } }),
    });
    renderAt("/clusters", "/clusters", <ClustersPage />);
    const table = await screen.findByRole("table");
    expect(within(table).getByText("Pending acceptance")).toBeInTheDocument();
    expect(within(table).queryByRole("button", { name: /Accept|Reject/ })).toBeNull();
  });

  it("registers a cluster whose agent must be accepted", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters": () => ({ json: { items: [] } }),
      "POST /clusters": () => ({
        status: 201,
        json: {
          cluster: cluster({ status: "Pending" }),
          registrationToken: "ghqa_reg_" + "a".repeat(64),
          expiresAt: new Date(Date.now() + 3600_000).toISOString(),
          installCommand: "helm upgrade --install gitopshq-agent …",
        },
      }),
    });
    renderAt("/clusters", "/clusters", <ClustersPage />);
    await userEvent.click(await screen.findByRole("button", { name: "Register cluster" }));
    await userEvent.type(screen.getByLabelText("Name"), "edge-1");
    await userEvent.selectOptions(screen.getByLabelText("Admin acceptance"), "required");
    await userEvent.click(screen.getByRole("button", { name: "Register" }));
    await screen.findByDisplayValue(/^ghqa_reg_a{64}$/);
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({
      name: "edge-1",
      labels: {},
      requireAcceptance: true,
    });
  });
});

import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Cluster } from "../api/types";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { ClusterPage } from "./ClusterPage";
import type { Inventory, Resource } from "./InventoryTab";

const cluster: Cluster = {
  id: "c1",
  name: "demo",
  labels: {},
  status: "Connected",
  capabilities: ["observe"],
  createdAt: "2026-11-01T00:00:00Z",
  environment: "dev",
  provider: "on-prem",
};

const inventory = (over: Partial<Inventory>): Inventory => ({
  connected: true,
  reported: true,
  asOf: new Date(Date.now() - 5_000).toISOString(),
  objects: 3,
  clusterScoped: { Node: 1 },
  namespaces: [{ name: "demo", total: 2, kinds: { Deployment: 1, Pod: 1 } }],
  ...over,
});

const web: Resource = {
  uid: "u1",
  group: "apps",
  version: "v1",
  kind: "Deployment",
  namespace: "demo",
  name: "web",
  status: "1/2 ready",
  health: "Progressing",
  labels: { app: "web" },
  createdAt: "2026-11-24T06:00:00Z",
};

describe("cluster inventory", () => {
  it("shows the namespaces, the resources with their health, and filters by namespace", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1": () => ({ json: cluster }),
      "GET /clusters/c1/inventory": () => ({ json: inventory({}) }),
      "GET /clusters/c1/resources": () => ({ json: { items: [web], nextCursor: "abc" } }),
      "POST /clusters/c1/inventory/refresh": () => ({ status: 202, json: { requestId: "r1" } }),
    });
    renderAt("/clusters/c1/inventory", "/clusters/:id/:tab", <ClusterPage />);

    const namespaces = await screen.findByRole("table", { name: "Namespaces" });
    expect(within(namespaces).getByText("1 Deployment, 1 Pod")).toBeInTheDocument();
    const resources = await screen.findByRole("table", { name: "Resources" });
    expect(within(resources).getByText("1/2 ready")).toBeInTheDocument();
    expect(within(resources).getByText("Progressing")).toBeInTheDocument();
    expect(within(resources).getByText("app=web")).toBeInTheDocument();

    await userEvent.click(within(namespaces).getByRole("button", { name: "demo" }));
    await waitFor(() =>
      expect(calls.some((c) => c.path === "/clusters/c1/resources" && c.query.includes("namespace=demo"))).toBe(true),
    );

    await userEvent.click(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => expect(calls.some((c) => c.query.includes("cursor=abc"))).toBe(true));

    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() =>
      expect(calls.some((c) => c.method === "POST" && c.path === "/clusters/c1/inventory/refresh")).toBe(true),
    );
  });

  it("says when the agent is away that the inventory is its last report, and offers no refresh", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1": () => ({ json: { ...cluster, status: "Disconnected" } }),
      "GET /clusters/c1/inventory": () => ({ json: inventory({ connected: false }) }),
      "GET /clusters/c1/resources": () => ({ json: { items: [] } }),
    });
    renderAt("/clusters/c1/inventory", "/clusters/:id/:tab", <ClusterPage />);
    expect(
      await screen.findByText(/the agent is disconnected; this is the last inventory it reported/),
    ).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Refresh" })).toBeDisabled();
    expect(await screen.findByText("No resources match.")).toBeInTheDocument();
  });
});

describe("resource inspection", () => {
  it("opens a resource live: conditions, events, related resources one click away, and its YAML", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1": () => ({ json: cluster }),
      "GET /clusters/c1/inventory": () => ({ json: inventory({}) }),
      "GET /clusters/c1/resources": () => ({ json: { items: [web] } }),
      "GET /clusters/c1/resources/apps/v1/Deployment/demo/web": () => ({
        json: {
          ...web,
          yaml: 'kind: "Deployment"',
          yamlTruncated: false,
          labels: { app: "web" },
          annotations: {},
          conditions: [
            {
              type: "Available",
              status: "True",
              reason: "MinimumReplicasAvailable",
              message: "ok",
              lastTransitionTime: "",
            },
          ],
          eventsIncluded: true,
          events: [
            {
              type: "Normal",
              reason: "ScalingReplicaSet",
              message: "Scaled up replica set web-1 to 2",
              count: 1,
              source: "deployment-controller",
            },
          ],
          related: [
            {
              relation: "owned",
              group: "apps",
              version: "v1",
              kind: "ReplicaSet",
              namespace: "demo",
              name: "web-1",
              status: "2/2 ready",
              health: "Healthy",
            },
          ],
        },
      }),
      "GET /clusters/c1/resources/apps/v1/ReplicaSet/demo/web-1": () => ({
        status: 404,
        json: { status: 404, error: "not_found", message: "ReplicaSet demo/web-1 not found" },
      }),
    });
    renderAt("/clusters/c1/inventory", "/clusters/:id/:tab", <ClusterPage />);
    const resources = await screen.findByRole("table", { name: "Resources" });
    await userEvent.click(within(resources).getByRole("button", { name: "web" }));

    const panel = await screen.findByRole("region", { name: "Deployment demo/web" });
    expect(await within(panel).findByText("MinimumReplicasAvailable")).toBeInTheDocument();
    expect(within(panel).getByText("Scaled up replica set web-1 to 2")).toBeInTheDocument();
    expect(within(panel).getByLabelText("YAML").textContent).toContain('kind: "Deployment"');

    await userEvent.click(within(panel).getByRole("button", { name: "ReplicaSet web-1" }));
    const next = await screen.findByRole("region", { name: "ReplicaSet demo/web-1" });
    expect(await within(next).findByText(/ReplicaSet demo\/web-1 not found/)).toBeInTheDocument();
    expect(calls.some((c) => c.path === "/clusters/c1/resources/apps/v1/ReplicaSet/demo/web-1")).toBe(true);
  });
});

describe("Argo CD tab", () => {
  it("lists the applications with sync and health, links to Argo CD, and asks for a Hard Refresh", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1": () => ({ json: { ...cluster, capabilities: ["observe", "argocd.read", "argocd.write"] } }),
      "GET /clusters/c1/argocd/applications": () => ({
        json: {
          items: [
            {
              namespace: "argocd",
              name: "payments",
              project: "default",
              syncStatus: "OutOfSync",
              health: "Degraded",
              healthMessage: "Deployment api has 1 unavailable replica",
              source: { repoURL: "https://git.example.com/p.git", path: "payments", targetRevision: "deploy/dev" },
              destination: { server: "https://kubernetes.default.svc", namespace: "payments" },
              history: [{ id: 0, revision: "abc" }],
              url: "https://argocd.example.com/applications/argocd/payments",
            },
          ],
        },
      }),
      "POST /clusters/c1/commands": () => ({ status: 202, json: { id: "cmd-12345678", status: "pending" } }),
    });
    renderAt("/clusters/c1/argocd", "/clusters/:id/:tab", <ClusterPage />);
    const table = await screen.findByRole("table", { name: "Argo CD applications" });
    expect(within(table).getByText("OutOfSync")).toBeInTheDocument();
    expect(within(table).getByText("Degraded")).toBeInTheDocument();
    expect(within(table).getByText("Deployment api has 1 unavailable replica")).toBeInTheDocument();
    expect(within(table).getByRole("link", { name: "View in Argo CD" })).toHaveAttribute(
      "href",
      "https://argocd.example.com/applications/argocd/payments",
    );
    await userEvent.click(within(table).getByRole("button", { name: "Hard Refresh payments" }));
    expect(await screen.findByRole("link", { name: "command cmd-1234" })).toBeInTheDocument();
    const post = calls.find((c) => c.method === "POST");
    expect(post?.body).toMatchObject({
      type: "refresh",
      target: { namespace: "argocd", kind: "Application", name: "payments" },
    });
  });
});

describe("Argo CD tab, links", () => {
  it("does not make an Argo CD address that is not http(s) a link", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1": () => ({ json: { ...cluster, capabilities: ["observe", "argocd.read"] } }),
      "GET /clusters/c1/argocd/applications": () => ({
        json: {
          items: [
            {
              namespace: "argocd",
              name: "payments",
              project: "default",
              syncStatus: "Synced",
              health: "Healthy",
              source: { repoURL: "https://git.example.com/p.git", path: "payments", targetRevision: "deploy/dev" },
              destination: { server: "https://kubernetes.default.svc", namespace: "payments" },
              history: [],
              url: "javascript:alert(document.cookie)//applications/argocd/payments",
            },
          ],
        },
      }),
    });
    renderAt("/clusters/c1/argocd", "/clusters/:id/:tab", <ClusterPage />);
    const table = await screen.findByRole("table", { name: "Argo CD applications" });
    expect(within(table).getByText("Synced")).toBeInTheDocument();
    expect(within(table).queryByRole("link", { name: "View in Argo CD" })).toBeNull();
  });
});

describe("Bindings tab", () => {
  it("shows each binding's Argo CD sync state, whether it runs the last deployment, and why it is Unknown", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1": () => ({ json: cluster }),
      "GET /clusters/c1/bindings": () => ({
        json: {
          items: [
            {
              projectId: "p1",
              project: "shop",
              tenant: "acme",
              environment: "dev",
              syncStatus: "Synced",
              application: "argocd/shop-dev",
              syncedRevision: "aaaaaaaaaaaaaaaa",
              atLastDeployment: false,
              lastDelivery: { commit: "bbbbbbbbbbbbbbbb", release: 3, at: "2026-11-24T06:00:00Z" },
            },
            {
              projectId: "p1",
              project: "shop",
              tenant: "globex",
              environment: "dev",
              syncStatus: "Unknown",
              syncReason: "no Argo CD application or Flux kustomization tracks deploy/dev at path demo/globex",
            },
            {
              projectId: "p2",
              project: "blog",
              tenant: "acme",
              environment: "dev",
              syncStatus: "Synced",
              application: "flux:flux-system/blog-dev",
              syncedRevision: "cccccccccccccccc",
              atLastDeployment: true,
              lastDelivery: { commit: "cccccccccccccccc", release: 1, at: "2026-11-24T06:00:00Z" },
            },
            {
              projectId: "p3",
              project: "docs",
              tenant: "acme",
              environment: "dev",
              syncStatus: "OutOfSync",
              application: "direct apply",
              syncReason: "the newest direct apply failed: web: refused",
              lastDelivery: { commit: "dddddddddddddddd", release: 2, at: "2026-11-24T06:00:00Z" },
            },
          ],
        },
      }),
    });
    renderAt("/clusters/c1/bindings", "/clusters/:id/:tab", <ClusterPage />);
    const table = await screen.findByRole("table");
    expect(within(table).getByText("Argo CD argocd/shop-dev")).toBeInTheDocument();
    expect(within(table).getByText(/not the last deployment/)).toBeInTheDocument();
    expect(
      within(table).getByText("no Argo CD application or Flux kustomization tracks deploy/dev at path demo/globex"),
    ).toBeInTheDocument();
    // Flux and the agent itself are named as what they are, not as Argo CD.
    expect(within(table).getByText("Flux flux-system/blog-dev")).toBeInTheDocument();
    expect(within(table).getByText("applied by the agent (direct mode)")).toBeInTheDocument();
    expect(within(table).getByText("the newest direct apply failed: web: refused")).toBeInTheDocument();
  });
});

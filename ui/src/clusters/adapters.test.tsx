import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import type { Cluster } from "../api/types";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { AdapterWiring } from "./AdapterWiring";

afterEach(() => vi.restoreAllMocks());

const CLUSTER = {
  id: "c1",
  name: "eu-1",
  labels: {},
  status: "Connected",
  capabilities: ["observe", "adapter.wire"],
  createdAt: "2026-11-01T00:00:00Z",
} as Cluster;

const WIRED = (adapter: string) => ({
  adapter,
  bindings: [
    {
      project: "shop",
      environment: "dev",
      tenant: "acme",
      adapter: "flux",
      outcome: "wired",
      message: "",
      objects: [
        {
          apiVersion: "kustomize.toolkit.fluxcd.io/v1",
          kind: "Kustomization",
          namespace: "flux-system",
          name: "gitopshq-shop-dev-acme",
        },
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          namespace: "acme-dev",
          name: "gitopshq-shop-dev-acme",
        },
      ],
      updatedAt: "2026-11-27T10:00:00Z",
    },
    {
      project: "shop",
      environment: "prod",
      tenant: "acme",
      adapter: "argocd",
      outcome: "failed",
      message: "the adapter's API is not installed on this cluster",
      objects: [],
      updatedAt: "2026-11-27T10:00:00Z",
    },
  ],
});

describe("runtime adapter wiring", () => {
  it("shows each binding's adapter objects and why one failed", async () => {
    setToken("t");
    fakeHub({ "GET /me": () => ({ json: ME }), "GET /clusters/c1/adapters": () => ({ json: WIRED("auto") }) });
    renderAt("/x", "/x", <AdapterWiring cluster={CLUSTER} />);
    const table = await screen.findByRole("table", { name: "Adapter wiring" });
    const rows = within(table).getAllByRole("row");
    expect(rows[1]).toHaveTextContent("shop · dev · acme");
    expect(rows[1]).toHaveTextContent("Flux");
    expect(rows[1]).toHaveTextContent("wired");
    expect(rows[1]).toHaveTextContent("Kustomization flux-system/gitopshq-shop-dev-acme");
    expect(rows[2]).toHaveTextContent("Argo CD");
    expect(rows[2]).toHaveTextContent("failed");
    expect(rows[2]).toHaveTextContent("the adapter's API is not installed on this cluster");
  });

  it("sets the cluster to manual with a PUT and says the hub keeps nothing", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1/adapters": () => ({ json: WIRED("auto") }),
      "PUT /clusters/c1/adapters": () => ({ json: { adapter: "manual", bindings: [] } }),
    });
    renderAt("/x", "/x", <AdapterWiring cluster={CLUSTER} />);
    fireEvent.click(await screen.findByRole("button", { name: "Set to manual" }));
    expect(
      await screen.findByText(/Manual: the cluster's operators keep the Flux and Argo CD objects/),
    ).toBeInTheDocument();
    await waitFor(() => expect(calls.find((c) => c.method === "PUT")?.body).toEqual({ adapter: "manual" }));
    expect(screen.queryByRole("button", { name: "Wire again" })).not.toBeInTheDocument();
  });
});

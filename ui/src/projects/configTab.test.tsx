import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import type { Project } from "../api/types";
import { fakeHub, ME, renderAt } from "../test-utils";
import { ConfigTab } from "./ConfigTab";

afterEach(() => vi.restoreAllMocks());

const PROJECT: Project = {
  id: "p-1",
  name: "shop",
  configRevision: 4,
  repository: { cloneUrl: "http://hub/git/shop.git", mainBranch: "main" },
  createdAt: "2026-11-01T00:00:00Z",
};
const WRITER = { ...ME, permissions: [...ME.permissions, "projects:read", "projects:write"] };

function hub(environments: unknown[]) {
  return fakeHub({
    "GET /me": () => ({ json: WRITER }),
    "GET /projects/p-1/environments": () => ({ json: { items: environments } }),
    "GET /projects/p-1/tenants": () => ({ json: { items: [] } }),
    "GET /projects/p-1/workloads": () => ({ json: { items: [] } }),
    "GET /projects/p-1/values": () => ({ json: { items: [] } }),
    "GET /projects/p-1/variables": () => ({ json: { items: [] } }),
    "GET /environments": () => ({ json: { items: [{ name: "dev" }, { name: "production" }] } }),
    "GET /tenants": () => ({ json: { items: [] } }),
    "PUT /projects/p-1/environments/dev": (body) => ({ json: { name: "dev", ...(body as object) } }),
    "PUT /projects/p-1/environments/production": (body) => ({ json: { name: "production", ...(body as object) } }),
    "POST /clusters/selector-preview": () => ({
      json: { selector: "tier=production", clusters: [{ id: "c-2", name: "eu-2", registered: true }] },
    }),
  });
}

describe("project environments", () => {
  it("asks the delivery to create the namespaces when the box is ticked", async () => {
    setToken("t");
    const calls = hub([]);
    renderAt("/x", "/x", <ConfigTab project={PROJECT} />);

    await screen.findByRole("form", { name: "Add or replace an environment" });
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Environment" }), "dev");
    await userEvent.type(screen.getByRole("textbox", { name: "Clusters (names, comma separated)" }), "eu-1");
    const box = screen.getByRole("checkbox", { name: /Create namespaces/ });
    expect(box).not.toBeChecked();
    await userEvent.click(box);
    await userEvent.click(screen.getByRole("button", { name: "Save environment" }));

    await vi.waitFor(() => expect(calls.some((c) => c.method === "PUT")).toBe(true));
    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({
      createNamespace: true,
      deliveryMode: "argocd",
      clusters: [{ cluster: "eu-1" }],
    });
  });

  it("says which environments create their namespaces", async () => {
    setToken("t");
    hub([
      { name: "dev", position: 0, namespacePattern: "shop-dev", createNamespace: true, clusters: [] },
      { name: "production", position: 1, namespacePattern: "shop-prod", createNamespace: false, clusters: [] },
    ]);
    renderAt("/x", "/x", <ConfigTab project={PROJECT} />);

    const dev = (await screen.findByText("shop-dev")).closest("li");
    expect(dev).toHaveTextContent("namespace shop-dev (the delivery creates it)");
    expect(screen.getByText("shop-prod").closest("li")).not.toHaveTextContent("creates it");
  });

  it("shows the selector and why each cluster is bound, and saves an edited selector with the named clusters only", async () => {
    setToken("t");
    const calls = hub([
      {
        name: "production",
        position: 1,
        namespacePattern: "shop-prod",
        createNamespace: false,
        clusters: [
          { cluster: "eu-1", overrides: {}, deliveryMode: "argocd", boundBy: ["name"] },
          { cluster: "eu-2", overrides: {}, deliveryMode: "flux", boundBy: ["selector"] },
        ],
        clusterSelector: { matchLabels: { tier: "production" } },
        selectorDeliveryMode: "flux",
      },
    ]);
    renderAt("/x", "/x", <ConfigTab project={PROJECT} />);

    const row = (await screen.findByText("shop-prod")).closest("li");
    expect(row).toHaveTextContent("selector tier=production");
    expect(row).toHaveTextContent("eu-2selected");
    // A cluster only the selector binds has the environment's mode, shown, not chosen.
    expect(screen.getByLabelText("Delivery mode of eu-2 in production")).toHaveTextContent("Flux");

    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Environment" }), "production");
    expect(screen.getByRole("textbox", { name: "Clusters (names, comma separated)" })).toHaveValue("eu-1");
    expect(screen.getByRole("checkbox", { name: /bind clusters by label selector/ })).toBeChecked();
    const preview = screen.getByRole("region", { name: "Clusters the selector matches" });
    expect(await within(preview).findByText("eu-2")).toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Add rule" }));
    const rule = screen.getByRole("group", { name: "Selector rule 2" });
    await userEvent.type(within(rule).getByLabelText("Label key"), "legacy");
    await userEvent.selectOptions(within(rule).getByLabelText("Operator"), "DoesNotExist");
    await userEvent.click(screen.getByRole("button", { name: "Save environment" }));

    await vi.waitFor(() => expect(calls.some((c) => c.method === "PUT")).toBe(true));
    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({
      namespacePattern: "shop-prod",
      createNamespace: false,
      deliveryMode: "flux",
      clusters: [{ cluster: "eu-1" }],
      clusterSelector: {
        matchLabels: { tier: "production" },
        matchExpressions: [{ key: "legacy", operator: "DoesNotExist" }],
      },
    });
  });
});

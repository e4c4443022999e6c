import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import type { Project } from "../api/types";
import { fakeHub, ME, renderAt } from "../test-utils";
import { FenceTab } from "./FenceTab";

afterEach(() => vi.restoreAllMocks());

const PROJECT: Project = {
  id: "p-1",
  name: "shop",
  configRevision: 4,
  repository: { cloneUrl: "http://hub/git/shop.git", mainBranch: "main" },
  createdAt: "2026-11-01T00:00:00Z",
};
const DEFAULT_FENCE = {
  allowedNamespaces: [],
  clusterScopedKinds: [],
  deniedKinds: ["rbac.authorization.k8s.io/*", "admissionregistration.k8s.io/*"],
  updatedBy: null,
  updatedAt: null,
  default: true,
};
const ADMIN = { ...ME, permissions: [...ME.permissions, "projects:read", "projects:admin"] };
const MEMBER = { ...ME, role: "member", permissions: ["projects:read", "projects:write"] };

describe("project fence", () => {
  it("shows members the default fence read-only, saying what each empty list allows", async () => {
    setToken("t");
    fakeHub({ "GET /me": () => ({ json: MEMBER }), "GET /projects/p-1/fence": () => ({ json: DEFAULT_FENCE }) });
    renderAt("/x", "/x", <FenceTab project={PROJECT} />);

    expect(await screen.findByText(/No admin has set this project's fence/)).toBeInTheDocument();
    const denied = screen.getByRole("list", { name: "Denied kinds" });
    expect(
      within(denied)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual(["rbac.authorization.k8s.io/*", "admissionregistration.k8s.io/*"]);
    expect(screen.getByText(/empty: any namespace but the reserved ones/)).toBeInTheDocument();
    expect(screen.queryByRole("textbox")).toBeNull();
    expect(screen.queryByRole("button", { name: "Save fence" })).toBeNull();
  });

  it("lets an admin replace the lists, one entry per line, and shows the new revision", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /projects/p-1/fence": () => ({ json: DEFAULT_FENCE }),
      "PUT /projects/p-1/fence": (body) => ({
        json: {
          ...(body as object),
          updatedBy: "ada@example.com",
          updatedAt: "2026-11-27T10:00:00Z",
          default: false,
          changed: true,
          revision: 5,
          commit: "abc",
        },
      }),
    });
    renderAt("/x", "/x", <FenceTab project={PROJECT} />);

    const namespaces = await screen.findByRole("textbox", { name: "Allowed namespaces" });
    await userEvent.type(namespaces, "shop-*{enter}{enter}  payments ");
    await userEvent.type(screen.getByRole("textbox", { name: "Cluster-scoped kinds" }), "/Namespace");
    await userEvent.click(screen.getByRole("button", { name: "Save fence" }));

    expect(await screen.findByRole("status")).toHaveTextContent("Saved as configuration revision 5");
    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({
      allowedNamespaces: ["shop-*", "payments"],
      clusterScopedKinds: ["/Namespace"],
      deniedKinds: ["rbac.authorization.k8s.io/*", "admissionregistration.k8s.io/*"],
    });
    expect(screen.getByText(/Set by ada@example.com/)).toBeInTheDocument();
  });

  it("shows each refused entry under its own list", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /projects/p-1/fence": () => ({
        json: {
          ...DEFAULT_FENCE,
          allowedNamespaces: ["shop-*", "Bad_NS"],
          default: false,
          updatedBy: "ada",
          updatedAt: "2026-11-27T10:00:00Z",
        },
      }),
      "PUT /projects/p-1/fence": () => ({
        status: 400,
        json: {
          status: 400,
          error: "invalid",
          message: "allowedNamespaces[1]: Bad_NS is not a namespace name or pattern",
          errors: [
            {
              field: "allowedNamespaces[1]",
              reason: "Bad_NS is not a namespace name or pattern ([a-z0-9*-], at most 63 characters)",
            },
          ],
        },
      }),
    });
    renderAt("/x", "/x", <FenceTab project={PROJECT} />);

    const namespaces = await screen.findByRole("textbox", { name: "Allowed namespaces" });
    expect(namespaces).toHaveValue("shop-*\nBad_NS");
    await userEvent.click(screen.getByRole("button", { name: "Save fence" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("entry 2: Bad_NS is not a namespace name or pattern");
    expect(namespaces).toHaveAttribute("aria-invalid", "true");
    expect(namespaces).toHaveAccessibleDescription(/entry 2: Bad_NS/);
    expect(screen.getByRole("textbox", { name: "Denied kinds" })).toHaveAttribute("aria-invalid", "false");
  });
});

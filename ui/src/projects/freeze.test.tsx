import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import type { Project } from "../api/types";
import { fakeHub, ME, renderAt } from "../test-utils";
import { FreezeTab } from "./FreezeTab";
import { CommandPage } from "../clusters/CommandPage";

afterEach(() => vi.restoreAllMocks());

const PROJECT: Project = {
  id: "p-1",
  name: "shop",
  configRevision: 1,
  repository: { cloneUrl: "http://hub/git/shop.git", mainBranch: "main" },
  createdAt: "2026-11-01T00:00:00Z",
};
const ADMIN = { ...ME, permissions: [...ME.permissions, "org:write", "releases:read"] };
const WINDOW = {
  id: "w-1",
  environment: "production",
  startsAt: "2026-12-18T00:00:00Z",
  endsAt: "2026-12-27T00:00:00Z",
  reason: "year-end freeze",
  active: true,
  createdBy: "m-1",
  createdAt: "2026-11-01T00:00:00Z",
  commandTypes: ["scale", "restart"],
};

async function fill(form: HTMLElement) {
  await userEvent.type(within(form).getByLabelText("Environment (empty: all)"), "production");
  await userEvent.type(within(form).getByLabelText("Starts"), "2026-12-18T00:00");
  await userEvent.type(within(form).getByLabelText("Ends"), "2026-12-27T00:00");
  await userEvent.type(within(form).getByLabelText("Reason"), "year-end freeze");
}

describe("freeze windows that hold commands", () => {
  it("shows what a window holds besides deployments", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /freeze-windows": () => ({ json: { items: [WINDOW] } }),
    });
    renderAt("/x", "/x", <FreezeTab project={PROJECT} />);
    expect(await screen.findByText("also scale, restart commands")).toBeInTheDocument();
  });

  it("holds command types only in a window for every project, and sends them", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /freeze-windows": () => ({ json: { items: [] } }),
      "POST /freeze-windows": () => ({ status: 201, json: WINDOW }),
    });
    renderAt("/x", "/x", <FreezeTab project={PROJECT} />);
    const form = await screen.findByRole("form", { name: "New freeze window" });
    const types = within(form).getByRole("group", { name: /Also hold commands/ });
    expect(within(types).getByRole("checkbox", { name: "scale" })).toBeDisabled();

    await fill(form);
    await userEvent.click(within(form).getByRole("checkbox", { name: "Every project" }));
    await userEvent.click(within(types).getByRole("checkbox", { name: "scale" }));
    await userEvent.click(within(types).getByRole("checkbox", { name: "restart" }));
    await userEvent.click(within(form).getByRole("button", { name: "Create freeze window" }));

    await vi.waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true));
    const body = calls.find((c) => c.method === "POST")!.body as Record<string, unknown>;
    expect(body.commandTypes).toEqual(["scale", "restart"]);
    expect(body).not.toHaveProperty("project");
  });

  it("'every command' replaces the single types", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /freeze-windows": () => ({ json: { items: [] } }),
      "POST /freeze-windows": () => ({ status: 201, json: WINDOW }),
    });
    renderAt("/x", "/x", <FreezeTab project={PROJECT} />);
    const form = await screen.findByRole("form", { name: "New freeze window" });
    await fill(form);
    await userEvent.click(within(form).getByRole("checkbox", { name: "Every project" }));
    await userEvent.click(within(form).getByRole("checkbox", { name: "scale" }));
    await userEvent.click(within(form).getByRole("checkbox", { name: "every command" }));
    expect(within(form).getByRole("checkbox", { name: "scale" })).not.toBeChecked();
    await userEvent.click(within(form).getByRole("button", { name: "Create freeze window" }));
    await vi.waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true));
    expect((calls.find((c) => c.method === "POST")!.body as Record<string, unknown>).commandTypes).toEqual(["all"]);
  });

  it("a project's own window sends no command types", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /freeze-windows": () => ({ json: { items: [] } }),
      "POST /freeze-windows": () => ({ status: 201, json: WINDOW }),
    });
    renderAt("/x", "/x", <FreezeTab project={PROJECT} />);
    const form = await screen.findByRole("form", { name: "New freeze window" });
    await fill(form);
    await userEvent.click(within(form).getByRole("button", { name: "Create freeze window" }));
    await vi.waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true));
    const body = calls.find((c) => c.method === "POST")!.body as Record<string, unknown>;
    expect(body.project).toBe("shop");
    expect(body).not.toHaveProperty("commandTypes");
  });

  it("a frozen command says which window holds it and how to run it anyway", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /commands/c-9": () => ({
        json: {
          id: "c-9",
          clusterId: "k-1",
          type: "scale",
          target: { namespace: "demo", kind: "Deployment", name: "web" },
          params: { replicas: "4" },
          requester: { id: "m-2", name: "bob" },
          breakGlass: false,
          status: "frozen",
          statusDetail:
            "cluster prod-eu (environment production) is frozen for restart, scale commands until 2026-12-27T00:00:00Z: year-end freeze",
          approvals: [],
          timeline: [],
          createdAt: "2026-12-20T10:00:00Z",
        },
      }),
    });
    renderAt("/commands/c-9", "/commands/:id", <CommandPage />);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("A freeze window holds this command; it was not run.");
    expect(alert).toHaveTextContent(
      "is frozen for restart, scale commands until 2026-12-27T00:00:00Z: year-end freeze",
    );
    expect(alert).toHaveTextContent("as break-glass with a written justification");
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { EnvironmentSettings } from "./EnvironmentSettings";

afterEach(() => vi.restoreAllMocks());

const ENVS = [
  { name: "dev", position: 0, description: "", createdAt: "2026-11-01T00:00:00Z", verifyTimeoutSeconds: null },
  {
    name: "production",
    position: 1,
    description: "live",
    createdAt: "2026-11-01T00:00:00Z",
    verifyTimeoutSeconds: 600,
  },
];
const ADMIN = { ...ME, permissions: [...ME.permissions, "projects:read", "org:write"] };

describe("environment settings", () => {
  it("shows which environments verify their deployments, and lets an admin set the timeout", async () => {
    setToken("t");
    let envs = ENVS;
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /environments": () => ({ json: { items: envs } }),
      "PATCH /environments/dev": (body) => {
        envs = [
          { ...ENVS[0], verifyTimeoutSeconds: (body as { verifyTimeoutSeconds: number }).verifyTimeoutSeconds },
          ENVS[1],
        ];
        return { json: envs[0] };
      },
    });
    renderAt("/x", "/x", <EnvironmentSettings />);

    const list = await screen.findByRole("list", { name: "Organization environments" });
    const [dev, production] = within(list).getAllByRole("listitem");
    expect(dev).toHaveTextContent("not verified");
    expect(production).toHaveTextContent("verified within 600 s");

    const form = screen.getByRole("form", { name: "Verification of dev" });
    const input = within(form).getByRole("spinbutton", { name: "Verification timeout (seconds)" });
    await userEvent.clear(input);
    await userEvent.type(input, "300");
    await userEvent.click(within(form).getByRole("button", { name: "Save timeout" }));

    expect(await within(list).findByText("verified within 300 s")).toBeInTheDocument();
    expect(calls.find((c) => c.method === "PATCH")?.body).toEqual({ verifyTimeoutSeconds: 300 });
  });

  it("shows the hub's refusal of a timeout out of range", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /environments": () => ({ json: { items: ENVS } }),
      "PATCH /environments/production": () => ({
        status: 400,
        json: {
          status: 400,
          error: "invalid",
          message: "verifyTimeoutSeconds: must be 0 (no verification) or between 10 and 86400 seconds",
          errors: [
            { field: "verifyTimeoutSeconds", reason: "must be 0 (no verification) or between 10 and 86400 seconds" },
          ],
        },
      }),
    });
    renderAt("/x", "/x", <EnvironmentSettings />);

    const form = await screen.findByRole("form", { name: "Verification of production" });
    const input = within(form).getByRole("spinbutton", { name: "Verification timeout (seconds)" });
    expect(input).toHaveValue(600);
    await userEvent.clear(input);
    await userEvent.type(input, "5");
    await userEvent.click(within(form).getByRole("button", { name: "Save timeout" }));

    expect(await within(form).findByRole("alert")).toHaveTextContent(
      "verifyTimeoutSeconds: must be 0 (no verification) or between 10 and 86400 seconds",
    );
  });

  it("shows members the timeouts without a form", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: { ...ME, permissions: ["projects:read"] } }),
      "GET /environments": () => ({ json: { items: ENVS } }),
    });
    renderAt("/x", "/x", <EnvironmentSettings />);

    expect(await screen.findByText("verified within 600 s")).toBeInTheDocument();
    expect(screen.queryByRole("form")).toBeNull();
  });
});

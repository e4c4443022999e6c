import { afterEach, describe, expect, it, vi } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { Organizations } from "./SettingsPage";

afterEach(() => vi.restoreAllMocks());

const ACME = {
  id: "55555555-5555-5555-5555-555555555555",
  slug: "acme",
  name: "Acme",
  plan: "free",
  operator: false,
  members: 3,
  clusters: 2,
  createdAt: "2026-11-01T00:00:00Z",
};
const OPERATOR = { ...ME, permissions: [...ME.permissions, "orgs:write"] };

describe("organizations", () => {
  it("lets the operator's owner put an organization on another plan", async () => {
    setToken("t");
    let org = ACME;
    const calls = fakeHub({
      "GET /me": () => ({ json: OPERATOR }),
      "GET /orgs": () => ({ json: { items: [org] } }),
      [`PUT /orgs/${ACME.id}/plan`]: (body) => {
        org = { ...ACME, plan: (body as { plan: string }).plan };
        return { json: org };
      },
    });
    renderAt("/x", "/x", <Organizations />);

    const plan = await screen.findByRole("combobox", { name: "Plan of acme" });
    expect(plan).toHaveValue("free");
    await userEvent.selectOptions(plan, "pro");

    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({ plan: "pro" });
    await vi.waitFor(() => expect(screen.getByRole("combobox", { name: "Plan of acme" })).toHaveValue("pro"));
  });

  it("shows the hub's refusal", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: OPERATOR }),
      "GET /orgs": () => ({ json: { items: [ACME] } }),
      [`PUT /orgs/${ACME.id}/plan`]: () => ({
        status: 403,
        json: { error: "forbidden", message: "orgs:write is required" },
      }),
    });
    renderAt("/x", "/x", <Organizations />);

    await userEvent.selectOptions(await screen.findByRole("combobox", { name: "Plan of acme" }), "enterprise");

    expect(await screen.findByText(/orgs:write is required/)).toBeInTheDocument();
  });
});

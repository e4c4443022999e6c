import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { PeoplePage } from "./PeoplePage";
import { SettingsPage } from "../settings/SettingsPage";

const ADMIN = {
  ...ME,
  permissions: [
    ...ME.permissions,
    "members:read",
    "members:write",
    "service-accounts:read",
    "service-accounts:write",
    "org:write",
  ],
};
const BOB = { id: "m-2", email: "bob@example.com", name: "Bob", role: "member", teams: [] };
const TOKEN = {
  id: "t-1",
  name: "laptop",
  scopes: [],
  status: "active",
  createdAt: new Date().toISOString(),
  lastUsedAt: null,
  expiresAt: null,
};

afterEach(() => vi.restoreAllMocks());

describe("people", () => {
  it("lists a member's tokens with their last use and revokes one", async () => {
    setToken("t");
    let revoked = false;
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /members": () => ({
        json: { items: [{ id: ADMIN.id, email: ADMIN.name, name: "Ada", role: "admin" }, BOB] },
      }),
      "GET /service-accounts": () => ({ json: { items: [] } }),
      "GET /members/m-2/tokens": () => ({ json: { items: [{ ...TOKEN, status: revoked ? "revoked" : "active" }] } }),
      "DELETE /members/m-2/tokens/t-1": () => {
        revoked = true;
        return { json: { ...TOKEN, status: "revoked" } };
      },
    });
    renderAt("/people", "/people", <PeoplePage />);
    await userEvent.click(await screen.findByRole("button", { name: "Tokens of bob@example.com" }));
    const table = await screen.findByRole("table", { name: "Tokens of bob@example.com" });
    expect(within(table).getByText("laptop")).toBeInTheDocument();
    expect(within(table).getAllByText("never")).toHaveLength(2);
    await userEvent.click(within(table).getByRole("button", { name: "Revoke laptop" }));
    expect(calls.some((c) => c.method === "DELETE" && c.path === "/members/m-2/tokens/t-1")).toBe(true);
    expect(await within(table).findByText("revoked")).toBeInTheDocument();
    expect(within(table).queryByRole("button", { name: "Revoke laptop" })).toBeNull();
  });

  it("removes a member after asking, and never offers to remove yourself", async () => {
    setToken("t");
    vi.spyOn(window, "confirm").mockReturnValue(true);
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /members": () => ({
        json: { items: [{ id: ADMIN.id, email: ADMIN.name, name: "Ada", role: "admin" }, BOB] },
      }),
      "GET /service-accounts": () => ({ json: { items: [] } }),
      "DELETE /members/m-2": () => ({ status: 204 }),
    });
    renderAt("/people", "/people", <PeoplePage />);
    await userEvent.click(await screen.findByRole("button", { name: "Remove bob@example.com" }));
    expect(calls.some((c) => c.method === "DELETE" && c.path === "/members/m-2")).toBe(true);
    expect(screen.queryByRole("button", { name: `Remove ${ADMIN.name}` })).toBeNull();
  });

  it("disables a service account and narrows its scopes", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /members": () => ({ json: { items: [] } }),
      "GET /service-accounts": () => ({
        json: { items: [{ id: "sa-1", name: "ci", scopes: ["clusters:read", "releases:create"], disabled: false }] },
      }),
      "GET /service-accounts/sa-1/tokens": () => ({ json: { items: [] } }),
      "PATCH /service-accounts/sa-1": (body) => ({
        json: { id: "sa-1", name: "ci", scopes: ["clusters:read"], ...(body as object) },
      }),
    });
    renderAt("/people", "/people", <PeoplePage />);
    await userEvent.click(await screen.findByRole("button", { name: "Disable ci" }));
    expect(calls.find((c) => c.method === "PATCH")?.body).toEqual({ disabled: true });
    await userEvent.click(screen.getByRole("button", { name: "Tokens of ci" }));
    const scopes = await screen.findByLabelText(/Scopes \(narrowing/);
    await userEvent.clear(scopes);
    await userEvent.type(scopes, "clusters:read");
    await userEvent.click(screen.getByRole("button", { name: "Save scopes" }));
    expect(calls.filter((c) => c.method === "PATCH").at(-1)?.body).toEqual({ scopes: ["clusters:read"] });
  });

  it("says which service account made a service account", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /members": () => ({ json: { items: [] } }),
      "GET /service-accounts": () => ({
        json: {
          items: [
            { id: "sa-1", name: "ci", scopes: ["service-accounts:write"], disabled: false, createdBy: "m-1" },
            {
              id: "sa-2",
              name: "deploy-bot",
              scopes: ["commands:create"],
              disabled: false,
              createdByServiceAccount: "sa-1",
            },
          ],
        },
      }),
    });
    renderAt("/people", "/people", <PeoplePage />);
    expect(await screen.findByText("made by ci")).toBeInTheDocument();
    expect(screen.getAllByText(/^made by/)).toHaveLength(1);
  });
});

describe("settings", () => {
  it("saves the organization's webhook without ever showing the secret, and sends a test", async () => {
    setToken("t");
    let saved: { webhookUrl: string; events: string[] } | null = null;
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /notifications": () => ({
        json: saved
          ? {
              source: "organization",
              webhookUrl: saved.webhookUrl,
              secretSet: true,
              events: saved.events,
              knownEvents: ["approval.requested", "command.failed"],
            }
          : {
              source: "none",
              webhookUrl: null,
              secretSet: false,
              events: [],
              knownEvents: ["approval.requested", "command.failed"],
            },
      }),
      "PUT /notifications": (body) => {
        saved = body as { webhookUrl: string; events: string[] };
        return { json: {} };
      },
      "POST /notifications/test": () => ({
        json: { delivered: true, webhookUrl: "https://hooks.example.com/x", error: null },
      }),
    });
    renderAt("/settings", "/settings", <SettingsPage />);
    await userEvent.type(await screen.findByLabelText("Webhook URL"), "https://hooks.example.com/x");
    await userEvent.type(screen.getByLabelText(/Signing secret/), "s3cret-of-16-chars!");
    await userEvent.click(screen.getByLabelText("command.failed"));
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({
      webhookUrl: "https://hooks.example.com/x",
      secret: "s3cret-of-16-chars!",
      events: ["command.failed"],
    });
    expect(await screen.findByText(/Events go to https:\/\/hooks.example.com\/x/)).toBeInTheDocument();
    expect(screen.queryByDisplayValue("s3cret-of-16-chars!")).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Send a test event" }));
    expect(await screen.findByText("The receiver accepted the test event.")).toBeInTheDocument();
  });

  it("lets the instance's admins create an organization and shows its owner token once", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: { ...ADMIN, permissions: [...ADMIN.permissions, "orgs:write"] } }),
      "GET /notifications": () => ({
        json: { source: "none", webhookUrl: null, secretSet: false, events: [], knownEvents: [] },
      }),
      "GET /orgs": () => ({
        json: {
          items: [
            {
              id: "o1",
              slug: "default",
              name: "Default",
              plan: "enterprise",
              operator: true,
              members: 3,
              clusters: 1,
              createdAt: new Date().toISOString(),
            },
          ],
        },
      }),
      "POST /orgs": () => ({
        status: 201,
        json: {
          org: {
            id: "o2",
            slug: "acme",
            name: "Acme",
            plan: "enterprise",
            operator: false,
            members: 1,
            clusters: 0,
            createdAt: new Date().toISOString(),
          },
          ownerId: "m9",
          ownerEmail: "root@acme.io",
          ownerToken: "ghqp_" + "a".repeat(64),
        },
      }),
    });
    renderAt("/settings", "/settings", <SettingsPage />);
    expect(await screen.findByText("operator")).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Slug"), "acme");
    await userEvent.type(within(screen.getByRole("form", { name: "New organization" })).getByLabelText("Name"), "Acme");
    await userEvent.type(screen.getByLabelText("Owner's email"), "root@acme.io");
    await userEvent.type(screen.getByLabelText("Owner's name"), "Root");
    await userEvent.click(screen.getByRole("button", { name: "Create organization" }));
    expect(await screen.findByText("ghqp_" + "a".repeat(64))).toBeInTheDocument();
  });

  it("does not offer organizations to an organization's own admins", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /notifications": () => ({
        json: { source: "none", webhookUrl: null, secretSet: false, events: [], knownEvents: [] },
      }),
    });
    renderAt("/settings", "/settings", <SettingsPage />);
    expect(await screen.findByRole("heading", { name: "Notifications" })).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Organizations" })).toBeNull();
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import type { Project } from "../api/types";
import { fakeHub, ME, renderAt } from "../test-utils";
import { ReleasesTab } from "../projects/ReleasesTab";
import { ApprovalsPage } from "../approvals/ApprovalsPage";

afterEach(() => vi.restoreAllMocks());

const PROJECT: Project = {
  id: "p-1",
  name: "shop",
  configRevision: 4,
  repository: { cloneUrl: "http://hub/git/shop.git", mainBranch: "main" },
  createdAt: "2026-11-01T00:00:00Z",
};
const RELEASER = { ...ME, permissions: [...ME.permissions, "projects:read", "releases:create", "features:read"] };
const RELEASE = {
  id: "r-4",
  number: 4,
  kind: "standard",
  configRevision: 4,
  requester: { id: "m-1", name: "ada" },
  createdAt: "2026-11-26T10:00:00Z",
};
const REQUIRED = {
  FeaturePromotion: "pro",
  FeatureRollback: "pro",
  FeatureSelectiveRollback: "enterprise",
  FeatureRollbackApproval: "enterprise",
  FeatureTeams: "pro",
  FeatureNotifications: "pro",
  FeatureValuesGovernance: "pro",
};

/** The /features answer of an organization on `plan`. */
function features(plan: "free" | "pro" | "enterprise") {
  const rank = { free: 0, pro: 1, enterprise: 2 };
  return {
    plan,
    features: Object.fromEntries(
      Object.entries(REQUIRED).map(([gate, needs]) => [gate, rank[plan] >= rank[needs as keyof typeof rank]]),
    ),
    requiredPlans: REQUIRED,
    limits: {},
  };
}

function releasesOn(plan: "free" | "pro" | "enterprise") {
  return fakeHub({
    "GET /me": () => ({ json: RELEASER }),
    "GET /features": () => ({ json: features(plan) }),
    "GET /projects/p-1/deliveries": () => ({ json: { items: [] } }),
    "GET /projects/p-1/releases": () => ({ json: { items: [RELEASE] } }),
    "GET /projects/p-1/releases/4": () => ({ json: { ...RELEASE, environments: [], deployments: [] } }),
    "POST /projects/p-1/rollbacks": () => ({ status: 202, json: { deployment: { id: "d-9", status: "pending" } } }),
  });
}

describe("what the organization's plan lacks", () => {
  it("disables promotion and rollback on the free plan and says which plan they need", async () => {
    setToken("t");
    releasesOn("free");
    renderAt("/x", "/x", <ReleasesTab project={PROJECT} />);
    await userEvent.click(await screen.findByRole("button", { name: /Release #4/ }));

    const promote = await screen.findByRole("button", { name: "Promote" });
    await vi.waitFor(() => expect(promote).toBeDisabled());
    expect(promote).toHaveAccessibleDescription(
      "FeaturePromotion is not in this organization's plan free; it needs plan pro.",
    );
    expect(screen.getByRole("button", { name: "Roll back to this release" })).toBeDisabled();
    expect(screen.getByText(/FeatureRollback is not in this organization's plan free/)).toBeInTheDocument();
  });

  it("on pro, rolls back everything but offers no scope, since a scoped rollback needs enterprise", async () => {
    setToken("t");
    const calls = releasesOn("pro");
    renderAt("/x", "/x", <ReleasesTab project={PROJECT} />);
    await userEvent.click(await screen.findByRole("button", { name: /Release #4/ }));
    const promote = await screen.findByRole("button", { name: "Promote" });
    await vi.waitFor(() => expect(promote).toBeEnabled());

    await userEvent.click(screen.getByRole("button", { name: "Roll back to this release" }));
    const everything = screen.getByRole("checkbox", { name: /Everything/ });
    expect(everything).toBeChecked();
    expect(everything).toBeDisabled();
    expect(
      screen.getByText(/FeatureSelectiveRollback is not in this organization's plan pro; it needs plan enterprise/),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Roll back" }));
    await vi.waitFor(() =>
      expect(calls.find((c) => c.method === "POST" && c.path === "/projects/p-1/rollbacks")?.body).toMatchObject({
        toRelease: 4,
        scope: "all",
      }),
    );
  });

  it("does not let a pro organization vote on a rollback, and says why", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /features": () => ({ json: features("pro") }),
      "GET /approvals": () => ({
        json: {
          items: [
            {
              id: "a-rb",
              kind: "rollback",
              status: "open",
              summary: "rollback of release #3 of shop in production",
              requiredApprovers: 1,
              approvals: 0,
              approverRoles: ["admin"],
              approverTeams: [],
              subject: { type: "deployment", requester: "bob@example.com", breakGlass: false, projectId: "p-1" },
              createdAt: new Date().toISOString(),
              expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
            },
          ],
        },
      }),
    });
    renderAt("/approvals", "/approvals", <ApprovalsPage />);
    await screen.findByText("rollback of release #3 of shop in production");
    await vi.waitFor(() => expect(screen.getByRole("button", { name: "Approve" })).toBeDisabled());
    expect(screen.getByRole("button", { name: "Reject" })).toBeDisabled();
    expect(screen.getByText(/FeatureRollbackApproval is not in this organization's plan pro/)).toBeInTheDocument();
  });
});

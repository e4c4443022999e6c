import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { DeploymentTimeline } from "./DeploymentTimeline";

afterEach(() => vi.restoreAllMocks());

const EVENTS = [
  { seq: 1, at: "2026-11-26T10:00:00Z", status: "pending", actor: "ada", detail: "requested: deploy #4 to dev" },
];

describe("deployment timeline", () => {
  it("says what the deployment changes, as the policy counted it", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /projects/p-1/deployments/d-1": () => ({
        json: {
          status: "pending_approval",
          timeline: EVENTS,
          changes: {
            added: 3,
            changed: 1,
            removed: 0,
            clusterScoped: 1,
            rbac: 1,
            sensitive: 1,
            images: 2,
            unreadable: 0,
            truncated: false,
          },
        },
      }),
    });
    renderAt("/x", "/x", <DeploymentTimeline projectId="p-1" deploymentId="d-1" />);

    const line = await screen.findByLabelText("What the deployment changes");
    expect(line).toHaveTextContent("changes: 3 added, 1 changed, 0 removed; RBAC: 1; cluster-scoped: 1; images: 2");
    expect(screen.getByRole("list", { name: "Deployment timeline" })).toHaveTextContent("requested: deploy #4 to dev");
  });

  it("shows no change line before the decision counted the changes", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /projects/p-1/deployments/d-1": () => ({ json: { status: "pending", timeline: EVENTS, changes: null } }),
    });
    renderAt("/x", "/x", <DeploymentTimeline projectId="p-1" deploymentId="d-1" />);

    expect(await screen.findByRole("list", { name: "Deployment timeline" })).toBeInTheDocument();
    expect(screen.queryByLabelText("What the deployment changes")).not.toBeInTheDocument();
  });
});

describe("runtime verification", () => {
  it("shows a degraded deployment and what each cluster ran", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /projects/p-1/deployments/d-1": () => ({
        json: {
          status: "degraded",
          timeline: [
            ...EVENTS,
            {
              seq: 2,
              at: "2026-11-26T10:10:00Z",
              status: "degraded",
              actor: "hub",
              detail: "us-1 did not run 0123456789ab in 300 s",
            },
          ],
          changes: null,
          clusters: [
            {
              environment: "staging",
              cluster: "eu-1",
              mode: "argocd",
              verified: true,
              deliverer: "argocd:shop-staging",
              revision: "0123456789abcdef0123456789abcdef01234567",
              health: "Synced, Healthy",
              reason: null,
              observedAt: "2026-11-26T10:02:00Z",
              verifiedAt: "2026-11-26T10:02:00Z",
            },
            {
              environment: "staging",
              cluster: "us-1",
              mode: "flux",
              verified: false,
              deliverer: "flux:flux-system/shop-staging",
              revision: "fedcba9876543210fedcba9876543210fedcba98",
              health: "Ready False",
              reason: "runs fedcba987654, not 0123456789ab",
              observedAt: "2026-11-26T10:09:00Z",
              verifiedAt: null,
            },
          ],
        },
      }),
    });
    renderAt("/x", "/x", <DeploymentTimeline projectId="p-1" deploymentId="d-1" />);

    expect(await screen.findByRole("note")).toHaveTextContent(
      "Degraded: the commits are written, but a cluster did not run them in time",
    );
    const timeline = screen.getByRole("list", { name: "Deployment timeline" });
    expect(within(timeline).getAllByText("degraded")).toHaveLength(1);
    const rows = within(screen.getByRole("table", { name: "What each cluster ran" }))
      .getAllByRole("row")
      .slice(1);
    expect(rows).toHaveLength(2);
    const eu = within(rows[0])
      .getAllByRole("cell")
      .map((c) => c.textContent);
    expect(eu.slice(0, 5)).toEqual([
      "eu-1 (staging)",
      "argocd",
      "verified",
      "0123456789ab",
      "Synced, Healthyargocd:shop-staging",
    ]);
    expect(eu[5]).not.toMatch(/not yet|last looked/);
    const us = within(rows[1])
      .getAllByRole("cell")
      .map((c) => c.textContent);
    expect(us.slice(0, 5)).toEqual([
      "us-1 (staging)",
      "flux",
      "not verified",
      "fedcba987654",
      "Ready False — runs fedcba987654, not 0123456789abflux:flux-system/shop-staging",
    ]);
    expect(us[5]).toMatch(/^last looked /);
  });

  it("shows no cluster table for an environment that is not verified", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /projects/p-1/deployments/d-1": () => ({ json: { status: "deployed", timeline: EVENTS, clusters: [] } }),
    });
    renderAt("/x", "/x", <DeploymentTimeline projectId="p-1" deploymentId="d-1" />);

    expect(await screen.findByRole("list", { name: "Deployment timeline" })).toBeInTheDocument();
    expect(screen.queryByRole("table", { name: "What each cluster ran" })).toBeNull();
    expect(screen.queryByRole("note")).toBeNull();
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { screen } from "@testing-library/react";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { DeploymentTimeline } from "./DeploymentTimeline";

afterEach(() => vi.restoreAllMocks());

const EVENTS = [{ seq: 1, at: "2026-11-26T10:00:00Z", status: "pending", actor: "ada", detail: "requested: deploy #4 to dev" }];

describe("deployment timeline", () => {
  it("says what the deployment changes, as the policy counted it", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /projects/p-1/deployments/d-1": () => ({
        json: {
          status: "pending_approval",
          timeline: EVENTS,
          changes: { added: 3, changed: 1, removed: 0, clusterScoped: 1, rbac: 1, sensitive: 1, images: 2, unreadable: 0, truncated: false },
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

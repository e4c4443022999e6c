import { describe, expect, it } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { ApprovalsPage } from "./ApprovalsPage";

const ITEM = {
  id: "a1",
  kind: "command",
  status: "open",
  summary: "scale Deployment demo/web on prod-eu {replicas=5}",
  requiredApprovers: 1,
  approvals: 0,
  approverRoles: ["admin", "owner"],
  approverTeams: [],
  subject: {
    type: "command",
    commandType: "scale",
    clusterId: "c1",
    target: "demo/Deployment/web",
    reason: "spike",
    requester: "bob@example.com",
    breakGlass: false,
  },
  createdAt: new Date().toISOString(),
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
};

describe("approvals inbox", () => {
  it("shows what is asked and by whom, and approves", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /approvals": () => ({ json: { items: [ITEM] } }),
      "POST /approvals/a1/approve": () => ({ status: 202, json: { id: "a1", status: "approved" } }),
    });
    renderAt("/approvals", "/approvals", <ApprovalsPage />);
    expect(await screen.findByText(ITEM.summary)).toBeInTheDocument();
    expect(screen.getByText("bob@example.com")).toBeInTheDocument();
    expect(screen.getByText(/0 of 1/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Approve" }));
    expect(calls.some((c) => c.method === "POST" && c.path === "/approvals/a1/approve")).toBe(true);
  });

  it("shows what a deployment changes, so the approver sees the ClusterRoleBinding", async () => {
    setToken("t");
    const deployment = {
      ...ITEM,
      id: "a2",
      kind: "release",
      summary: "deploy release #4 of shop to dev",
      subject: {
        type: "deployment",
        requester: "bob@example.com",
        breakGlass: false,
        projectId: "p-1",
        project: "shop",
        release: 4,
        action: "deploy",
        environments: ["dev"],
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
    };
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /approvals": () => ({ json: { items: [deployment, ITEM] } }),
    });
    renderAt("/approvals", "/approvals", <ApprovalsPage />);
    const card = await screen.findByRole("article", { name: deployment.summary });
    expect(card).toHaveTextContent("Changes3 added, 1 changed, 0 removed; RBAC: 1; cluster-scoped: 1; images: 2");
    // A command has no change summary.
    expect(screen.getByRole("article", { name: ITEM.summary })).not.toHaveTextContent("Changes");
  });

  it("asks for a comment before it rejects", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /approvals": () => ({ json: { items: [ITEM] } }),
      "POST /approvals/a1/reject": () => ({ status: 202, json: { id: "a1", status: "rejected" } }),
    });
    renderAt("/approvals", "/approvals", <ApprovalsPage />);
    await userEvent.click(await screen.findByRole("button", { name: "Reject" }));
    expect(screen.getByText("(required to reject)")).toBeInTheDocument();
    expect(calls.some((c) => c.path.endsWith("/reject"))).toBe(false);
    await userEvent.type(screen.getByLabelText(/Comment/), "not during the sale");
    await userEvent.click(screen.getByRole("button", { name: "Reject" }));
    expect(calls.find((c) => c.path.endsWith("/reject"))?.body).toEqual({ comment: "not during the sale" });
  });

  it("shows the permission the hub names on a 403", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: { ...ME, permissions: [] } }),
      "GET /approvals": () => ({
        status: 403,
        json: { status: 403, error: "forbidden", message: "this action requires the 'approvals:read' permission" },
      }),
    });
    renderAt("/approvals", "/approvals", <ApprovalsPage />);
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "Not allowed: this action requires the 'approvals:read' permission",
    );
  });
});

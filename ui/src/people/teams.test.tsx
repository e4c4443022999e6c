import { afterEach, describe, expect, it, vi } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { TeamsPage } from "./TeamsPage";

const ADMIN = { ...ME, permissions: [...ME.permissions, "members:read", "members:write"] };

afterEach(() => vi.restoreAllMocks());

describe("teams", () => {
  it("shows a team's members and grants and grants a role on clusters by selector", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /teams": () => ({ json: { items: [{ id: "t-1", name: "sre", memberCount: 1 }] } }),
      "GET /teams/t-1": () => ({
        json: {
          id: "t-1",
          name: "sre",
          members: [{ memberId: "m-2", email: "bob@example.com", source: "oidc" }],
          grants: [{ id: "g-1", role: "viewer", scope: "projects" }],
        },
      }),
      "GET /members": () => ({ json: { items: [] } }),
      "GET /projects": () => ({ json: { items: [] } }),
      "POST /grants": () => ({ json: { id: "g-2", role: "member", scope: "clusters" } }),
    });
    renderAt("/teams", "/teams", <TeamsPage />);
    await userEvent.click(await screen.findByRole("button", { name: "Team sre" }));
    expect(await screen.findByText(/bob@example.com/)).toBeInTheDocument();
    expect(screen.getByText("(from SSO)")).toBeInTheDocument();
    // A membership from SSO is the provider's: no button to remove it.
    expect(screen.queryByRole("button", { name: "Remove bob@example.com from the team" })).toBeNull();
    expect(screen.getByText(/viewer on every project/)).toBeInTheDocument();

    await userEvent.selectOptions(screen.getByLabelText("On"), "clusters");
    await userEvent.type(screen.getByLabelText(/Selector/), "tier=dev");
    await userEvent.click(screen.getByRole("button", { name: "Grant" }));
    const post = calls.find((c) => c.method === "POST" && c.path === "/grants");
    expect(post?.body).toEqual({
      teamId: "t-1",
      role: "member",
      scope: "clusters",
      selector: { matchLabels: { tier: "dev" }, matchExpressions: [] },
    });
  });
});

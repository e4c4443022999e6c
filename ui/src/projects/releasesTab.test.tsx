import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import type { Project } from "../api/types";
import { fakeHub, ME, renderAt } from "../test-utils";
import { ReleasesTab } from "./ReleasesTab";

afterEach(() => vi.restoreAllMocks());

const PROJECT: Project = {
  id: "p-1",
  name: "shop",
  configRevision: 4,
  repository: { cloneUrl: "http://hub/git/shop.git", mainBranch: "main" },
  createdAt: "2026-11-01T00:00:00Z",
};
const RELEASER = { ...ME, permissions: [...ME.permissions, "projects:read", "releases:create"] };
const RELEASE = {
  id: "r-4",
  number: 4,
  kind: "standard",
  configRevision: 4,
  requester: { id: "m-1", name: "ada" },
  createdAt: "2026-11-26T10:00:00Z",
};
const DETAIL = {
  ...RELEASE,
  sourceCommit: "0123456789abcdef",
  environments: [
    { environment: "dev", status: "deployed", deploymentId: "d-1" },
    { environment: "staging", status: "degraded", deploymentId: "d-2" },
  ],
  deployments: [
    { id: "d-1", action: "deploy", environments: ["dev"], status: "deployed", createdAt: "2026-11-26T10:00:00Z" },
    {
      id: "d-2",
      action: "promote",
      environments: ["staging"],
      status: "degraded",
      detail: "us-1 did not run it in 300 s",
      createdAt: "2026-11-26T10:05:00Z",
    },
  ],
};
const DEGRADED_409 = {
  status: 409,
  error: "conflict",
  message:
    "release #4 is degraded in staging: its commit was written but not every cluster ran it (us-1 did not run it in 300 s); promoting from an unverified environment needs breakGlass with a justification",
};

describe("releases and runtime verification", () => {
  it("shows where a release is degraded, and offers break-glass when the hub refuses to promote from there", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: RELEASER }),
      "GET /projects/p-1/deliveries": () => ({ json: { items: [] } }),
      "GET /projects/p-1/releases": () => ({ json: { items: [RELEASE] } }),
      "GET /projects/p-1/releases/4": () => ({ json: DETAIL }),
      "GET /projects/p-1/deployments/d-1": () => ({ json: { status: "deployed", timeline: [] } }),
      "GET /projects/p-1/deployments/d-2": () => ({ json: { status: "degraded", timeline: [] } }),
      "POST /projects/p-1/releases/4/promote": (body) =>
        (body as { breakGlass?: boolean }).breakGlass
          ? { status: 202, json: { deployment: { id: "d-3", status: "deploying" } } }
          : { status: 409, json: DEGRADED_409 },
    });
    renderAt("/x", "/x", <ReleasesTab project={PROJECT} />);

    await userEvent.click(await screen.findByRole("button", { name: /Release #4/ }));
    const stands = await screen.findByLabelText("Where release 4 stands");
    expect(stands).toHaveTextContent("dev deployed");
    expect(stands).toHaveTextContent("staging degraded");
    const deployments = screen.getByRole("list", { name: "Deployments of release 4" });
    expect(within(deployments).getByText("degraded")).toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Promote" }));
    const form = screen.getByRole("form", { name: "Promote release" });
    expect(within(form).queryByRole("textbox", { name: "Justification" })).toBeNull();
    await userEvent.click(within(form).getByRole("button", { name: "Promote" }));

    expect(await within(form).findByRole("alert")).toHaveTextContent("release #4 is degraded in staging");
    expect(within(form).getByText(/did not run this release/)).toBeInTheDocument();
    expect(within(form).getByRole("checkbox", { name: "Break-glass" })).toBeChecked();
    await userEvent.type(
      within(form).getByRole("textbox", { name: "Justification" }),
      "hotfix for the checkout outage, staging cluster is down",
    );
    await userEvent.click(within(form).getByRole("button", { name: "Promote" }));

    await vi.waitFor(() => expect(screen.queryByRole("form", { name: "Promote release" })).toBeNull());
    const promotes = calls.filter((c) => c.method === "POST");
    expect(promotes.map((c) => c.body)).toEqual([
      {},
      { breakGlass: true, justification: "hotfix for the checkout outage, staging cluster is down" },
    ]);
  });

  it("does not tick break-glass for other refusals", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: RELEASER }),
      "GET /projects/p-1/deliveries": () => ({ json: { items: [] } }),
      "GET /projects/p-1/releases": () => ({ json: { items: [RELEASE] } }),
      "GET /projects/p-1/releases/4": () => ({ json: { ...DETAIL, environments: [], deployments: [] } }),
      "POST /projects/p-1/releases/4/promote": () => ({
        status: 409,
        json: { status: 409, error: "conflict", message: "release #4 is not deployed to any environment yet" },
      }),
    });
    renderAt("/x", "/x", <ReleasesTab project={PROJECT} />);

    await userEvent.click(await screen.findByRole("button", { name: /Release #4/ }));
    await userEvent.click(await screen.findByRole("button", { name: "Promote" }));
    const form = screen.getByRole("form", { name: "Promote release" });
    await userEvent.click(within(form).getByRole("button", { name: "Promote" }));

    expect(await within(form).findByRole("alert")).toHaveTextContent("not deployed to any environment yet");
    expect(within(form).getByRole("checkbox", { name: "Break-glass" })).not.toBeChecked();
    expect(within(form).queryByText(/did not run this release/)).toBeNull();
  });
});

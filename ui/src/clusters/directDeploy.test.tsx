import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import type { Cluster } from "../api/types";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { DirectDeployTab } from "./DirectDeployTab";

afterEach(() => vi.restoreAllMocks());

const CLUSTER = {
  id: "c1",
  name: "eu-1",
  labels: {},
  status: "Connected",
  capabilities: ["observe"],
  createdAt: "2026-11-01T00:00:00Z",
} as Cluster;

describe("direct deploy tab", () => {
  it("lists the applies with their counts and the objects the agent placed, and warns without the capability", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1/direct-deploys": () => ({
        json: {
          capability: false,
          applies: [
            {
              id: "d-1:production:c1",
              deploymentId: "d-1",
              projectId: "p-1",
              project: "shop",
              environment: "production",
              commit: "0123456789abcdef",
              status: "failed",
              error: "1 of 3 objects failed or are not healthy",
              objects: 3,
              applied: 2,
              pruned: 1,
              failed: 1,
              createdAt: "2026-11-26T10:00:00Z",
              finishedAt: "2026-11-26T10:01:00Z",
            },
          ],
          objects: [
            {
              projectId: "p-1",
              project: "shop",
              environment: "production",
              tenant: "acme",
              apiVersion: "apps/v1",
              kind: "Deployment",
              namespace: "acme-prod",
              name: "web",
              appliedAt: "2026-11-26T10:01:00Z",
            },
          ],
          objectsTruncated: false,
        },
      }),
    });
    renderAt("/x", "/x", <DirectDeployTab cluster={CLUSTER} />);
    const table = await screen.findByRole("table", { name: "Direct applies" });
    expect(within(table).getByRole("link", { name: "shop" })).toHaveAttribute("href", "/projects/p-1/releases");
    expect(within(table).getByText("2 applied, 1 pruned, 1 failed")).toBeInTheDocument();
    expect(within(table).getByText("1 of 3 objects failed or are not healthy")).toBeInTheDocument();
    expect(within(table).getByText("0123456789ab")).toBeInTheDocument();
    expect(screen.getByRole("list", { name: "Objects placed by direct deploys" })).toHaveTextContent(
      "shop · production · acme: Deployment acme-prod/web",
    );
    expect(screen.getByRole("note")).toHaveTextContent("has not announced direct.deploy");
  });

  it("says so when nothing was applied directly", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1/direct-deploys": () => ({
        json: { capability: true, applies: [], objects: [], objectsTruncated: false },
      }),
    });
    renderAt("/x", "/x", <DirectDeployTab cluster={CLUSTER} />);
    expect(await screen.findByText("No deployment has been applied to this cluster directly.")).toBeInTheDocument();
    expect(screen.queryByRole("note")).toBeNull();
  });
});

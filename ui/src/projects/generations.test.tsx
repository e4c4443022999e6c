import { afterEach, describe, expect, it, vi } from "vitest";
import { screen } from "@testing-library/react";
import { setToken } from "../api/client";
import type { Project } from "../api/types";
import { fakeHub, ME, renderAt } from "../test-utils";
import { GenerationsTab } from "./GenerationsTab";

afterEach(() => vi.restoreAllMocks());

const PROJECT: Project = {
  id: "p-1",
  name: "shop",
  configRevision: 8,
  generatedRevision: 8,
  repository: { cloneUrl: "https://hub.example/git/shop.git", mainBranch: "main" },
  createdAt: "2026-11-26T10:00:00Z",
};

describe("generations tab", () => {
  it("shows how many units each generation rendered and reused, and nothing for older ones", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /projects/p-1/generations": () => ({
        json: {
          items: [
            {
              revision: 8,
              status: "committed",
              commit: "9c0d1e2f3a4b5c6d",
              detail: "1 of 1000 units changed",
              units: 1000,
              rendered: 1,
              reused: 999,
              finishedAt: "2026-11-26T10:05:00Z",
            },
            {
              revision: 7,
              status: "committed",
              commit: "1a2b3c4d5e6f7a8b",
              detail: "1000 of 1000 units changed",
              units: 1000,
              finishedAt: "2026-11-26T10:00:00Z",
            },
          ],
        },
      }),
      "GET /projects/p-1/commits": () => ({ json: { items: [] } }),
    });
    renderAt("/x", "/x", <GenerationsTab project={PROJECT} />);

    expect(await screen.findByText("units: 1 rendered / 999 reused")).toBeInTheDocument();
    expect(screen.getByText("1000 of 1000 units changed")).toBeInTheDocument();
    // Revision 7 was planned before fingerprints: no counts rather than a misleading 0 / 0.
    expect(screen.getAllByText(/rendered \//)).toHaveLength(1);
  });

  it("shows when a generation still running started (the hub names it startedAt), not 'never'", async () => {
    setToken("t");
    const started = new Date(Date.now() - 2 * 60_000).toISOString();
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /projects/p-1/generations": () => ({
        json: { items: [{ revision: 9, status: "running", units: 1000, startedAt: started }] },
      }),
      "GET /projects/p-1/commits": () => ({ json: { items: [] } }),
    });
    renderAt("/x", "/x", <GenerationsTab project={PROJECT} />);

    expect(await screen.findByText("2 min ago")).toBeInTheDocument();
    expect(screen.queryByText("never")).not.toBeInTheDocument();
  });
});

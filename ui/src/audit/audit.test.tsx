import { describe, expect, it } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { ReplayForm, replayBody } from "./ReplayForm";
import { EvidenceLink } from "./EvidenceLink";
import { historyFilename } from "./download";

describe("audit replay and evidence", () => {
  it("builds a replay body from ids or from a type and range", () => {
    expect(replayBody({ mode: "ids", ids: "a, b\nc", type: "", from: "", to: "" })).toEqual({
      workflowIds: ["a", "b", "c"],
    });
    const byType = replayBody({
      mode: "type",
      ids: "",
      type: "CommandWorkflow",
      from: "2026-11-01T10:00",
      to: "2026-11-02T10:00",
    });
    expect(byType.type).toBe("CommandWorkflow");
    expect("from" in byType && byType.from).toMatch(/^2026-11-0\dT\d\d:00:00.000Z$/);
  });

  it("names history files safely", () => {
    expect(historyFilename("delivery-p/1 r2")).toBe("delivery-p_1_r2.history.json");
  });

  it("replays the given workflows and shows each outcome with the divergent event", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "POST /audit/replays": () => ({
        json: {
          requested: 2,
          deterministic: 1,
          diverged: 1,
          results: [
            {
              workflowId: "c-1",
              workflowType: "CommandWorkflow",
              outcome: "deterministic",
              eventId: null,
              reason: null,
            },
            {
              workflowId: "c-2",
              workflowType: "CommandWorkflow",
              outcome: "diverged",
              eventId: 5,
              reason: "[TMPRL1100] timer vs activity",
            },
          ],
        },
      }),
    });
    renderAt("/audit", "/audit", <ReplayForm />);
    await userEvent.type(screen.getByLabelText("Workflow ids"), "c-1 c-2");
    await userEvent.click(screen.getByRole("button", { name: "Replay" }));

    expect(await screen.findByRole("status")).toHaveTextContent("1 deterministic, 1 diverged of 2");
    expect(screen.getByText(/diverged at event 5/)).toBeInTheDocument();
    expect(screen.getByText("[TMPRL1100] timer vs activity")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Download history of c-2" })).toBeInTheDocument();
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({ workflowIds: ["c-1", "c-2"] });
  });

  it("shows the hub's refusal naming the field", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "POST /audit/replays": () => ({
        status: 400,
        json: {
          status: 400,
          error: "invalid",
          message: "workflowIds: at most 50 workflows per request",
          errors: [{ field: "workflowIds", reason: "at most 50 workflows per request" }],
        },
      }),
    });
    renderAt("/audit", "/audit", <ReplayForm />);
    await userEvent.type(screen.getByLabelText("Workflow ids"), "x");
    await userEvent.click(screen.getByRole("button", { name: "Replay" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("workflowIds: at most 50 workflows per request");
  });

  it("fetches the signed evidence with the caller's token", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /commands/c-1/evidence": () => ({ json: { evidence: { kind: "command" }, signature: { keyId: "k" } } }),
    });
    renderAt("/c", "/c", <EvidenceLink path="/commands/c-1/evidence" filename="c.json" />);
    await userEvent.click(screen.getByRole("button", { name: "Evidence (JSON)" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Evidence downloaded");
    const get = calls.find((c) => c.path === "/commands/c-1/evidence");
    expect(get?.headers.Authorization).toBe("Bearer t");
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { PolicyPage } from "./PolicyPage";

afterEach(() => vi.restoreAllMocks());

const AUTHOR = { ...ME, permissions: [...ME.permissions, "policies:read", "policies:write", "features:read"] };
const REGO = "package gitopshq.approval\n\ndecision := {}\n";
const POLICY = {
  name: "approval",
  version: 3,
  rego: REGO,
  createdBy: "m-1",
  createdAt: "2026-11-20T00:00:00Z",
  versions: [{ version: 3, createdBy: "m-1", createdAt: "2026-11-20T00:00:00Z", active: true }],
};
const ANSWER = {
  policy: "approval",
  draftSha256: "5b0e",
  limit: 100,
  found: 3,
  evaluated: 2,
  timedOut: false,
  changed: [
    {
      kind: "command",
      subjectId: "c-1",
      at: "2026-11-27T10:00:00Z",
      recordedVersion: 3,
      recordedOutcome: "auto_approve",
      recordedReasons: ["scale is auto-approved on cluster prod-eu"],
      draftOutcome: "require_approval",
      draftReasons: ["scale requires 1 approval on cluster prod-eu"],
      input: { command: { type: "scale" } },
    },
  ],
  inputNotRecorded: [
    {
      kind: "deployment",
      subjectId: "d-0",
      recordedOutcome: "auto_approve",
      recordedReasons: [],
      note: "input not recorded",
    },
  ],
};

function hub(plan: "free" | "pro", whatIf: () => { status?: number; json?: unknown } = () => ({ json: ANSWER })) {
  return fakeHub({
    "GET /me": () => ({ json: AUTHOR }),
    "GET /features": () => ({
      json: {
        plan,
        features: { FeatureValuesGovernance: plan === "pro" },
        requiredPlans: { FeatureValuesGovernance: "pro" },
        limits: {},
      },
    }),
    "GET /policies/approval": () => ({ json: POLICY }),
    "GET /policies/approval/versions/3": () => ({ json: { ...POLICY, active: true } }),
    "POST /policies/approval/what-if": whatIf,
  });
}

describe("what if", () => {
  it("sends the editor's draft and shows each changed decision recorded beside draft", async () => {
    setToken("t");
    const calls = hub("pro");
    renderAt("/policies/approval", "/policies/:name", <PolicyPage />);

    await userEvent.click(await screen.findByRole("button", { name: "What if" }));

    const region = await screen.findByRole("region", { name: "What if" });
    expect(within(region).getByRole("status")).toHaveTextContent(
      "The draft evaluated 2 of 3 recorded decisions: 1 would change. Nothing was published.",
    );
    const row = within(region).getByRole("row", { name: "command c-1" });
    const cells = within(row).getAllByRole("cell");
    expect(cells[1]).toHaveTextContent("auto_approve");
    expect(cells[1]).toHaveTextContent("scale is auto-approved on cluster prod-eu");
    expect(cells[2]).toHaveTextContent("require_approval");
    expect(cells[2]).toHaveTextContent("scale requires 1 approval on cluster prod-eu");
    expect(cells[3]).toHaveTextContent('"type": "scale"');
    expect(region).toHaveTextContent("1 decision not evaluated: input not recorded");
    const sent = calls.find((c) => c.method === "POST" && c.path === "/policies/approval/what-if");
    expect(sent?.body).toEqual({ rego: REGO, limit: 100 });
    expect(calls.some((c) => c.method === "PUT")).toBe(false);
  });

  it("shows OPA's errors for a draft that does not compile", async () => {
    setToken("t");
    hub("pro", () => ({
      status: 400,
      json: {
        status: 400,
        error: "invalid_request",
        message: "policy does not compile",
        errors: [{ field: "rego", reason: "gitopshq/approval:3:1: unexpected eof token" }],
        opaErrors: [{ code: "rego_parse_error", message: "unexpected eof token", location: { row: 3, col: 1 } }],
      },
    }));
    renderAt("/policies/approval", "/policies/:name", <PolicyPage />);

    await userEvent.click(await screen.findByRole("button", { name: "What if" }));

    expect(await screen.findByRole("alert", { name: "OPA errors" })).toHaveTextContent(
      "line 3, column 1: unexpected eof token (rego_parse_error)",
    );
  });

  it("is disabled when the plan does not govern policies", async () => {
    setToken("t");
    hub("free");
    renderAt("/policies/approval", "/policies/:name", <PolicyPage />);

    const button = await screen.findByRole("button", { name: "What if" });
    await vi.waitFor(() => expect(button).toBeDisabled());
  });
});

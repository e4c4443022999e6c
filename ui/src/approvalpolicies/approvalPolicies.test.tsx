import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ApprovalPolicy, Cluster } from "../api/types";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { ApprovalPoliciesPage } from "./ApprovalPoliciesPage";
import { parseSelector, selectorText } from "../clusters/labelSelector";
import { SettingsTab } from "../clusters/SettingsTab";

const PRODUCTION: ApprovalPolicy = {
  name: "production",
  description: "two of the SRE team",
  requireApproval: ["rollback", "scale"],
  autoApprove: ["sync"],
  requiredApprovers: 2,
  approverRoles: ["admin", "owner"],
  approverTeams: ["sre"],
  breakGlass: { allowed: false, roles: ["admin", "owner"] },
  clusters: [],
  selector: { matchLabels: { tier: "production" }, matchExpressions: [] },
  governs: [{ cluster: "prod-eu", attachedBy: "selector", selector: "tier=production" }],
};

describe("approval policies", () => {
  it("reads and writes selectors in kubectl's syntax", () => {
    const s = parseSelector("tier=production, region in (eu, us), env!=dev, !canary, team");
    expect(s).toEqual({
      matchLabels: { tier: "production" },
      matchExpressions: [
        { key: "region", operator: "In", values: ["eu", "us"] },
        { key: "env", operator: "NotIn", values: ["dev"] },
        { key: "canary", operator: "DoesNotExist", values: [] },
        { key: "team", operator: "Exists", values: [] },
      ],
    });
    expect(selectorText(s, "*")).toBe("tier=production,region in (eu,us),env notin (dev),!canary,team");
    expect(parseSelector("")).toBeNull();
    expect(selectorText(parseSelector("*"), "*")).toBe("*");
  });

  it("lists each policy with its rules, attachments and the clusters it governs", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /approval-policies": () => ({ json: { items: [PRODUCTION] } }),
    });
    renderAt("/approval-policies", "/approval-policies", <ApprovalPoliciesPage />);
    const table = await screen.findByRole("table");
    expect(within(table).getByText("production", { selector: "a" })).toBeInTheDocument();
    expect(within(table).getByText("rollback, scale: 2 approvals")).toBeInTheDocument();
    expect(within(table).getByText("selector: tier=production")).toBeInTheDocument();
    expect(within(table).getByText("prod-eu (by selector)")).toBeInTheDocument();
  });

  it("creates a policy attached by name and selector, and shows a refused tie naming the policies", async () => {
    setToken("t");
    let attempt = 0;
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /approval-policies": () => ({ json: { items: [PRODUCTION] } }),
      "POST /approval-policies": () =>
        ++attempt === 1
          ? {
              status: 400,
              json: {
                status: 400,
                error: "invalid",
                message: "invalid request",
                errors: [
                  {
                    field: "selector",
                    reason:
                      "cluster prod-eu matches the selectors of approval policies eu and production equally specifically",
                  },
                ],
              },
            }
          : { status: 201, json: { ...PRODUCTION, name: "eu" } },
    });
    renderAt("/approval-policies", "/approval-policies", <ApprovalPoliciesPage />);
    await userEvent.click(await screen.findByRole("button", { name: "New approval policy" }));
    const form = screen.getByRole("form", { name: "New approval policy" });
    await userEvent.type(within(form).getByLabelText("Name"), "eu");
    await userEvent.click(
      within(within(form).getByRole("group", { name: "Require approval for" })).getByLabelText("restart"),
    );
    await userEvent.clear(within(form).getByLabelText("Approvals needed"));
    await userEvent.type(within(form).getByLabelText("Approvals needed"), "2");
    await userEvent.type(within(form).getByLabelText(/Clusters by name/), "prod-us");
    await userEvent.type(within(form).getByLabelText(/Label selector/), "region=eu");
    await userEvent.click(within(form).getByRole("button", { name: "Create approval policy" }));
    expect(await within(form).findByText(/approval policies eu and production/)).toBeInTheDocument();
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({
      name: "eu",
      description: "",
      requireApproval: ["restart"],
      autoApprove: [],
      requiredApprovers: 2,
      approverRoles: ["admin", "owner"],
      approverTeams: [],
      breakGlass: { allowed: false, roles: ["admin", "owner"] },
      clusters: ["prod-us"],
      selector: { matchLabels: { region: "eu" }, matchExpressions: [] },
    });
  });

  it("shows the cluster's policy in force, why, and a warning for a tie", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1/approval-policy": () => ({ json: { bound: false } }),
    });
    const cluster: Cluster = {
      id: "c1",
      name: "prod-eu",
      labels: { tier: "production", canary: "yes" },
      status: "Connected",
      capabilities: [],
      createdAt: "2026-11-01T00:00:00Z",
      approvalPolicy: {
        name: "canary",
        attachedBy: "selector",
        selector: "canary=yes",
        reason: "approval policy canary is attached by selector canary=yes",
        tiedWith: ["production"],
        warning:
          "the selectors of approval policies canary and production match this cluster equally specifically; canary applies because its name sorts first.",
      },
    };
    renderAt("/clusters/c1/settings", "/clusters/:id/:tab", <SettingsTab cluster={cluster} />);
    expect(await screen.findByText("canary", { selector: "a" })).toHaveAttribute(
      "href",
      "/approval-policies?name=canary",
    );
    expect(screen.getByText(/matched selector canary=yes/)).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("canary applies because its name sorts first");
    expect(await screen.findByText(/saving creates cluster-prod-eu/)).toBeInTheDocument();
  });
});

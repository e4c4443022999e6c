import { afterEach, describe, expect, it, vi } from "vitest";
import { useState } from "react";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { SelectorEditor } from "./SelectorEditor";
import { rowsToSelector, selectorText, selectorToRows, type SelectorRow } from "./clusterSelector";
import { withDeliveryMode, type ProjectEnvironment } from "./DeliveryModeSelect";

afterEach(() => vi.restoreAllMocks());

const CLUSTERS = [
  { id: "1", name: "eu-1", labels: { tier: "production", region: "eu-1" }, registered: true },
  { id: "2", name: "eu-2", labels: { tier: "production", region: "eu-2" }, registered: false },
  { id: "3", name: "dev-1", labels: { tier: "dev" }, registered: true },
];

/** The hub's preview, evaluating matchLabels like the hub does (enough for these tests). */
function previewHub() {
  return fakeHub({
    "GET /me": () => ({ json: ME }),
    "POST /clusters/selector-preview": (body) => {
      const s = body as { matchLabels?: Record<string, string>; matchExpressions?: { operator: string }[] };
      if (
        s.matchExpressions?.some(
          (e) => e.operator === "In" && !("values" in e && (e as { values: string[] }).values.length),
        )
      ) {
        return {
          status: 400,
          json: {
            status: 400,
            error: "invalid",
            message: "invalid",
            errors: [{ field: "selector.matchExpressions[0].values", reason: "must be non-empty for In" }],
          },
        };
      }
      const clusters = CLUSTERS.filter((c) =>
        Object.entries(s.matchLabels ?? {}).every(([k, v]) => (c.labels as Record<string, string>)[k] === v),
      );
      return { json: { selector: "x", clusters } };
    },
  });
}

function Editor({ initial = [] as SelectorRow[] }) {
  const [rows, setRows] = useState(initial);
  return <SelectorEditor rows={rows} onChange={setRows} settleMs={0} />;
}

describe("cluster selector editor", () => {
  it("previews the matching clusters as the selector is typed, and says which join only once registered", async () => {
    setToken("t");
    const calls = previewHub();
    renderAt("/x", "/x", <Editor />);
    const matches = screen.getByRole("region", { name: "Clusters the selector matches" });
    // No rules: the empty selector, which matches every registered cluster.
    expect(await within(matches).findByText("dev-1")).toBeInTheDocument();
    expect(matches).toHaveTextContent("every registered cluster");

    await userEvent.click(screen.getByRole("button", { name: "Add rule" }));
    const rule = screen.getByRole("group", { name: "Selector rule 1" });
    await userEvent.type(within(rule).getByLabelText("Label key"), "tier");
    await userEvent.type(within(rule).getByLabelText("Value"), "production");

    await vi.waitFor(() => expect(within(matches).queryByText("dev-1")).toBeNull());
    expect(await within(matches).findByText("eu-1")).toBeInTheDocument();
    expect(within(matches).getByText("eu-2").parentElement).toHaveTextContent("joins when its agent registers");
    expect(matches).toHaveTextContent("tier=production");
    expect(calls.filter((c) => c.method === "POST").at(-1)?.body).toEqual({ matchLabels: { tier: "production" } });
  });

  it("hides the values of Exists and shows the hub's refusal naming the field", async () => {
    setToken("t");
    previewHub();
    renderAt("/x", "/x", <Editor initial={[{ key: "tier", operator: "In", values: "" }]} />);
    const rule = screen.getByRole("group", { name: "Selector rule 1" });
    expect(within(rule).getByLabelText("Values (comma separated)")).toBeInTheDocument();
    expect(await screen.findByRole("alert")).toHaveTextContent("selector.matchExpressions[0].values");

    await userEvent.selectOptions(within(rule).getByLabelText("Operator"), "Exists");
    expect(within(rule).queryByLabelText(/Values/)).toBeNull();
    await vi.waitFor(() => expect(screen.queryByRole("alert")).toBeNull());
  });

  it("removes a rule", async () => {
    setToken("t");
    previewHub();
    renderAt("/x", "/x", <Editor initial={[{ key: "tier", operator: "=", values: "dev" }]} />);
    await userEvent.click(screen.getByRole("button", { name: "Remove selector rule 1" }));
    expect(screen.queryByRole("group", { name: "Selector rule 1" })).toBeNull();
  });
});

describe("selector rows", () => {
  it("become matchLabels and matchExpressions and back", () => {
    const rows: SelectorRow[] = [
      { key: "tier", operator: "=", values: "production" },
      { key: "region", operator: "In", values: "eu-1, eu-2" },
      { key: "legacy", operator: "DoesNotExist", values: "ignored" },
      { key: " ", operator: "Exists", values: "" },
    ];
    const s = rowsToSelector(rows);
    expect(s).toEqual({
      matchLabels: { tier: "production" },
      matchExpressions: [
        { key: "region", operator: "In", values: ["eu-1", "eu-2"] },
        { key: "legacy", operator: "DoesNotExist" },
      ],
    });
    expect(selectorText(s)).toBe("tier=production,region in (eu-1,eu-2),!legacy");
    expect(rowsToSelector(selectorToRows(s))).toEqual(s);
    expect(rowsToSelector([])).toEqual({});
  });

  it("changing a named cluster's delivery mode keeps the selector and does not name the selected clusters", () => {
    const env: ProjectEnvironment = {
      name: "production",
      namespacePattern: "p",
      clusters: [
        { cluster: "eu-1", overrides: {}, deliveryMode: "argocd", boundBy: ["name"] },
        { cluster: "eu-2", overrides: {}, deliveryMode: "flux", boundBy: ["selector"] },
      ],
      clusterSelector: { matchLabels: { tier: "production" } },
      selectorDeliveryMode: "flux",
    };
    expect(withDeliveryMode(env, "eu-1", "direct")).toEqual({
      namespacePattern: "p",
      createNamespace: false,
      clusters: [{ cluster: "eu-1", overrides: {}, deliveryMode: "direct" }],
      clusterSelector: { matchLabels: { tier: "production" } },
      deliveryMode: "flux",
    });
  });
});

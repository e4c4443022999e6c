/**
 * Cluster label selectors of project environments (docs/delivery.md#cluster-selectors): the
 * Kubernetes LabelSelector the API takes, and the rows the environment editor edits it as.
 */

import {
  selectorText as kubectlText,
  type LabelSelector,
  type Operator,
  type Requirement,
} from "../clusters/labelSelector";

export { OPERATORS, type LabelSelector, type Operator } from "../clusters/labelSelector";

/** One row of the editor: `=` is a matchLabels pair, the others matchExpressions. */
export interface SelectorRow {
  key: string;
  operator: "=" | Operator;
  /** Comma separated for In and NotIn; the one value for `=`. */
  values: string;
}

export const takesValues = (op: SelectorRow["operator"]) => op === "=" || op === "In" || op === "NotIn";

/** The selector the rows stand for; rows without a key are left out. */
export function rowsToSelector(rows: SelectorRow[]): LabelSelector {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: Requirement[] = [];
  for (const r of rows) {
    const key = r.key.trim();
    if (!key) continue;
    if (r.operator === "=") {
      matchLabels[key] = r.values.trim();
    } else if (r.operator === "In" || r.operator === "NotIn") {
      const values = r.values
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "");
      matchExpressions.push({ key, operator: r.operator, values });
    } else {
      matchExpressions.push({ key, operator: r.operator });
    }
  }
  return {
    ...(Object.keys(matchLabels).length > 0 && { matchLabels }),
    ...(matchExpressions.length > 0 && { matchExpressions }),
  };
}

/** The rows of a stored selector. */
export function selectorToRows(s: LabelSelector | null | undefined): SelectorRow[] {
  if (!s) return [];
  return [
    ...Object.entries(s.matchLabels ?? {}).map(([key, v]) => ({ key, operator: "=" as const, values: v })),
    ...(s.matchExpressions ?? []).map((e) => ({
      key: e.key ?? "",
      operator: (e.operator ?? "Exists") as Operator,
      values: (e.values ?? []).join(", "),
    })),
  ];
}

/** kubectl's form, e.g. `tier=production,region in (eu-1,eu-2),!legacy`. */
export function selectorText(s: LabelSelector): string {
  return kubectlText(s, "every registered cluster");
}

/** Why a cluster of an environment is there, as the API says (`boundBy`); hubs before selectors: named. */
export function boundByName(c: { boundBy?: string[] }) {
  return !c.boundBy || c.boundBy.includes("name");
}

export function boundBySelector(c: { boundBy?: string[] }) {
  return c.boundBy?.includes("selector") ?? false;
}

import type { LabelSelector } from "../api/types";

/**
 * Kubernetes label selectors over cluster labels, as the hub takes and returns them (one schema,
 * LabelSelector, for project environments' cluster selectors and approval policies' attachments),
 * and kubectl's text form of them.
 */

export type { LabelSelector };

export const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"] as const;
export type Operator = (typeof OPERATORS)[number];

/** One matchExpressions requirement. */
export type Requirement = NonNullable<LabelSelector["matchExpressions"]>[number];

/**
 * kubectl's form, e.g. `tier=production,region in (eu-1,eu-2),!legacy`; `everything` for the empty
 * selector (it matches every cluster), an empty text for none.
 */
export function selectorText(s: LabelSelector | null | undefined, everything: string): string {
  if (!s) return "";
  const parts = [
    ...Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(s.matchExpressions ?? []).map((e) => {
      const values = (e.values ?? []).join(",");
      switch (e.operator) {
        case "In":
          return `${e.key} in (${values})`;
        case "NotIn":
          return `${e.key} notin (${values})`;
        case "Exists":
          return e.key ?? "";
        default:
          return `!${e.key}`;
      }
    }),
  ];
  return parts.length === 0 ? everything : parts.join(",");
}

/** Splits on commas outside parentheses. */
function split(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((p) => p.trim()).filter((p) => p !== "");
}

/**
 * A selector typed in kubectl's syntax as the API's shape: `tier=production`, `region in (eu,us)`,
 * `region notin (cn)`, `env!=dev`, `canary` (exists), `!canary` (does not exist); `*` is the empty
 * selector (every cluster); an empty text is none (null). The hub validates keys and values; this
 * only shapes them.
 */
export function parseSelector(text: string): LabelSelector | null {
  const t = text.trim();
  if (t === "") return null;
  const matchLabels: Record<string, string> = {};
  const matchExpressions: Requirement[] = [];
  if (t === "*") return { matchLabels, matchExpressions };
  for (const part of split(t)) {
    const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/i.exec(part);
    if (set) {
      const values = set[3]
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "");
      matchExpressions.push({ key: set[1], operator: set[2].toLowerCase() === "in" ? "In" : "NotIn", values });
    } else if (part.includes("!=")) {
      const [k, v] = part.split("!=", 2);
      matchExpressions.push({ key: k.trim(), operator: "NotIn", values: [v.trim()] });
    } else if (part.includes("=")) {
      const [k, v] = part.split(/==?/, 2);
      matchLabels[k.trim()] = v.trim();
    } else if (part.startsWith("!")) {
      matchExpressions.push({ key: part.slice(1).trim(), operator: "DoesNotExist", values: [] });
    } else {
      matchExpressions.push({ key: part, operator: "Exists", values: [] });
    }
  }
  return { matchLabels, matchExpressions };
}

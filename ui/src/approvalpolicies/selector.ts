import type { LabelSelector } from "../api/types";

/**
 * A label selector in kubectl's syntax, as the hub describes it: `tier=production`,
 * `region in (eu,us)`, `region notin (cn)`, `canary` (exists), `!canary` (does not exist); `*` is
 * the empty selector, which matches every cluster.
 */
export function formatSelector(s: LabelSelector | null | undefined): string {
  if (!s) return "";
  const parts = Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of s.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "Exists") parts.push(e.key ?? "");
    else if (e.operator === "DoesNotExist") parts.push(`!${e.key}`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else parts.push(`${e.key} in (${values})`);
  }
  return parts.length === 0 ? "*" : parts.join(",");
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
 * The selector typed in kubectl's syntax as the API's shape; null for an empty text (no selector).
 * The hub validates keys and values; this only shapes them.
 */
export function parseSelector(text: string): LabelSelector | null {
  const t = text.trim();
  if (t === "") return null;
  const matchLabels: Record<string, string> = {};
  const matchExpressions: NonNullable<LabelSelector["matchExpressions"]> = [];
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

import { useEffect, useState } from "react";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import { Button, inputClass } from "../components/Button";
import { FormError } from "../components/States";
import {
  OPERATORS,
  rowsToSelector,
  selectorText,
  takesValues,
  type LabelSelector,
  type SelectorRow,
} from "./clusterSelector";

interface PreviewCluster {
  id: string;
  name: string;
  labels?: Record<string, string>;
  registered: boolean;
}

interface Preview {
  selector: string;
  clusters: PreviewCluster[];
}

/** The value after it stopped changing for `ms`: one preview per pause in typing, not per key. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/**
 * Edits an environment's cluster label selector as rows (key, operator, values) and shows, as it
 * changes, which of the organization's clusters it matches (POST /clusters/selector-preview).
 */
export function SelectorEditor({
  rows,
  onChange,
  settleMs = 300,
}: {
  rows: SelectorRow[];
  onChange: (rows: SelectorRow[]) => void;
  settleMs?: number;
}) {
  const selector = rowsToSelector(rows);
  const settled = useSettled(JSON.stringify(selector), settleMs);
  const preview = useQuery({
    queryKey: ["clusters", "selector-preview", settled],
    queryFn: () =>
      api<Preview>("/clusters/selector-preview", { method: "POST", body: JSON.parse(settled) as LabelSelector }),
    // The last answer stays while the next one loads, so the list does not flicker while typing.
    placeholderData: keepPreviousData,
  });
  const set = (i: number, patch: Partial<SelectorRow>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  return (
    <fieldset className="space-y-2 rounded border border-slate-200 p-3">
      <legend className="px-1 text-sm font-medium">Cluster selector</legend>
      <p className="text-xs text-slate-600">
        Binds every registered cluster whose labels match, besides the named ones; clusters join and leave as their
        labels change. No rows: every registered cluster.
      </p>
      {rows.map((r, i) => (
        <div key={i} className="grid gap-2 md:grid-cols-4" role="group" aria-label={`Selector rule ${i + 1}`}>
          <label className="text-sm">
            Label key
            <input className={inputClass} value={r.key} onChange={(e) => set(i, { key: e.target.value })} />
          </label>
          <label className="text-sm">
            Operator
            <select
              className={inputClass}
              value={r.operator}
              onChange={(e) => set(i, { operator: e.target.value as SelectorRow["operator"] })}
            >
              <option value="=">equals</option>
              {OPERATORS.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          </label>
          {takesValues(r.operator) ? (
            <label className="text-sm">
              {r.operator === "=" ? "Value" : "Values (comma separated)"}
              <input className={inputClass} value={r.values} onChange={(e) => set(i, { values: e.target.value })} />
            </label>
          ) : (
            <span />
          )}
          <div className="flex items-end">
            <Button
              aria-label={`Remove selector rule ${i + 1}`}
              onClick={() => onChange(rows.filter((_, j) => j !== i))}
            >
              Remove
            </Button>
          </div>
        </div>
      ))}
      <Button onClick={() => onChange([...rows, { key: "", operator: "=", values: "" }])}>Add rule</Button>
      <section aria-label="Clusters the selector matches" aria-live="polite" className="text-sm">
        <p className="font-medium">
          Matches <code>{selectorText(selector)}</code>
        </p>
        {preview.isPending ? (
          <p role="status" className="text-slate-500">
            Checking which clusters match…
          </p>
        ) : preview.isError ? (
          <FormError error={preview.error} />
        ) : preview.data.clusters.length === 0 ? (
          <p className="text-slate-500">No cluster of the organization matches.</p>
        ) : (
          <ul className="list-disc pl-5">
            {preview.data.clusters.map((c) => (
              <li key={c.id}>
                {c.name}
                {!c.registered && <span className="text-slate-500"> — joins when its agent registers</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
    </fieldset>
  );
}

import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { api, ApiError, type OpaError } from "../api/client";
import type { Schemas, With } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { FormError } from "../components/States";
import { stamp } from "../components/time";

type WhatIfDecision = With<Schemas["WhatIfDecision"], "kind" | "subjectId">;
type WhatIfResult = Omit<
  With<Schemas["WhatIfResult"], "evaluated" | "found" | "timedOut">,
  "changed" | "inputNotRecorded"
> & { changed: WhatIfDecision[]; inputNotRecorded: WhatIfDecision[] };

/**
 * "What if": evaluates the editor's draft (not published) against the organization's latest
 * recorded decisions of the policy and shows each decision it would change, recorded beside draft.
 */
export function WhatIf({
  name,
  draft,
  disabled,
  onOpaErrors,
}: {
  name: string;
  draft: string;
  disabled: boolean;
  onOpaErrors: (errors: OpaError[]) => void;
}) {
  const [limit, setLimit] = useState(100);
  const run = useMutation({
    mutationFn: () => api<WhatIfResult>(`/policies/${name}/what-if`, { method: "POST", body: { rego: draft, limit } }),
    onMutate: () => onOpaErrors([]),
    onError: (e) => onOpaErrors(e instanceof ApiError ? e.opaErrors : []),
  });
  const r = run.data;
  return (
    <div className="space-y-2">
      <div className="flex items-center gap-3">
        <Button onClick={() => run.mutate()} disabled={disabled || run.isPending}>
          {run.isPending ? "Evaluating…" : "What if"}
        </Button>
        <label className="flex items-center gap-1 text-sm">
          against the latest
          <input
            type="number"
            min={1}
            max={500}
            aria-label="Recorded decisions"
            className={`${inputClass} w-20`}
            value={limit}
            onChange={(e) => setLimit(Number(e.target.value))}
          />
          decisions
        </label>
      </div>
      {run.error && !(run.error instanceof ApiError && run.error.opaErrors.length > 0) && (
        <FormError error={run.error} />
      )}
      {r && (
        <div role="region" aria-label="What if" className="rounded border border-slate-200 bg-white p-3">
          <p role="status" className="text-sm">
            The draft evaluated {r.evaluated} of {r.found} recorded decision{r.found === 1 ? "" : "s"}:{" "}
            {r.changed.length === 0 ? "none would change" : `${r.changed.length} would change`}.
            {r.timedOut && " The time budget ran out before the rest."} Nothing was published.
          </p>
          {r.changed.length > 0 && (
            <table className="mt-2 w-full text-left text-sm">
              <thead>
                <tr className="text-xs uppercase text-slate-500">
                  <th className="p-1">Decision</th>
                  <th className="p-1">Recorded</th>
                  <th className="p-1">Draft</th>
                  <th className="p-1">Input</th>
                </tr>
              </thead>
              <tbody>
                {r.changed.map((d) => (
                  <Changed key={`${d.kind}-${d.subjectId}`} d={d} />
                ))}
              </tbody>
            </table>
          )}
          {r.inputNotRecorded.length > 0 && (
            <details className="mt-2 text-sm">
              <summary>
                {r.inputNotRecorded.length} decision{r.inputNotRecorded.length === 1 ? "" : "s"} not evaluated: input
                not recorded
              </summary>
              <ul className="mt-1 text-xs text-slate-600">
                {r.inputNotRecorded.map((d) => (
                  <li key={`${d.kind}-${d.subjectId}`}>
                    {d.kind} {d.subjectId} ({d.at ? stamp(d.at) : ""}): {d.recordedOutcome}, {d.note}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </div>
      )}
    </div>
  );
}

function Changed({ d }: { d: WhatIfDecision }) {
  return (
    <tr className="border-t border-slate-100 align-top" aria-label={`${d.kind} ${d.subjectId}`}>
      <td className="p-1">
        <div>{d.kind}</div>
        <div className="font-mono text-xs">{d.subjectId}</div>
        <div className="text-xs text-slate-500">
          {d.at ? stamp(d.at) : ""}
          {d.recordedVersion != null && `, v${d.recordedVersion}`}
        </div>
      </td>
      <td className="p-1">
        <Outcome outcome={d.recordedOutcome} reasons={d.recordedReasons} />
      </td>
      <td className="p-1">
        {d.draftOutcome ? (
          <Outcome outcome={d.draftOutcome} reasons={d.draftReasons} />
        ) : (
          <span className="text-red-800">no decision: {d.draftError}</span>
        )}
      </td>
      <td className="p-1">
        <details>
          <summary className="text-xs">input</summary>
          <pre className="max-h-48 overflow-auto text-xs">{JSON.stringify(d.input, null, 2)}</pre>
        </details>
      </td>
    </tr>
  );
}

function Outcome({ outcome, reasons }: { outcome?: string; reasons?: string[] }) {
  return (
    <div>
      <div className="font-medium">{outcome}</div>
      <ul className="text-xs text-slate-600">
        {(reasons ?? []).map((reason, i) => (
          <li key={i}>{reason}</li>
        ))}
      </ul>
    </div>
  );
}

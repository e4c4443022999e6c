import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../api/client";
import { Button, inputClass } from "../components/Button";
import { TimeRange, toIso } from "../components/TimeRange";
import { FormError } from "../components/States";
import { downloadJson, historyFilename } from "./download";
import type { Schemas, With } from "../api/types";

export type ReplayOutcome = Omit<With<Schemas["ReplayRequests.Outcome"], "workflowId" | "outcome">, "outcome"> & {
  outcome: "deterministic" | "diverged" | "not_found" | "failed" | "skipped";
};

export type ReplayReport = Omit<
  With<Schemas["Report"], "requested" | "deterministic" | "diverged" | "results">,
  "results"
> & {
  results: ReplayOutcome[];
};

export const WORKFLOW_TYPES = [
  "CommandWorkflow",
  "ReleaseWorkflow",
  "RollbackWorkflow",
  "DeliveryGenerationWorkflow",
  "ApprovalWorkflow",
  "RegistrationWorkflow",
  "TokenRotationWorkflow",
];

export interface ReplayInput {
  mode: "ids" | "type";
  ids: string;
  type: string;
  from: string;
  to: string;
}

/** The request body for a form's input: ids one per line or comma-separated, or type and range. */
export function replayBody(f: ReplayInput) {
  if (f.mode === "ids") {
    return {
      workflowIds: f.ids
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    };
  }
  return { type: f.type, from: toIso(f.from), to: toIso(f.to) };
}

const tone: Record<ReplayOutcome["outcome"], string> = {
  deterministic: "text-green-800",
  diverged: "text-red-800",
  not_found: "text-slate-600",
  failed: "text-amber-800",
  skipped: "text-slate-600",
};

/** Replays recorded workflow histories against the hub's current code and shows each outcome. */
export function ReplayForm() {
  const [f, setF] = useState<ReplayInput>({ mode: "ids", ids: "", type: WORKFLOW_TYPES[0], from: "", to: "" });
  const replay = useMutation({
    mutationFn: () => api<ReplayReport>("/audit/replays", { method: "POST", body: replayBody(f) }),
  });
  const history = useMutation({
    mutationFn: (id: string) => downloadJson(`/workflows/${encodeURIComponent(id)}/history`, historyFilename(id)),
  });
  return (
    <section aria-labelledby="replay-title" className="mt-6 rounded border border-slate-200 bg-white p-4">
      <h2 id="replay-title" className="text-lg font-semibold">
        Replay workflows
      </h2>
      <p className="text-sm text-slate-600">
        Replays recorded Temporal histories against the workflow code this hub runs: at most 50 per request.
      </p>
      <form
        className="mt-3 grid gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          replay.mutate();
        }}
      >
        <fieldset className="flex gap-4 text-sm">
          <legend className="sr-only">Select workflows by</legend>
          <label>
            <input type="radio" name="mode" checked={f.mode === "ids"} onChange={() => setF({ ...f, mode: "ids" })} />{" "}
            By workflow ids
          </label>
          <label>
            <input type="radio" name="mode" checked={f.mode === "type"} onChange={() => setF({ ...f, mode: "type" })} />{" "}
            By type and time range
          </label>
        </fieldset>
        {f.mode === "ids" ? (
          <label className="text-sm">
            Workflow ids
            <textarea
              className={inputClass}
              rows={3}
              value={f.ids}
              onChange={(e) => setF({ ...f, ids: e.target.value })}
            />
          </label>
        ) : (
          <div className="grid grid-cols-1 gap-2 md:grid-cols-3">
            <label className="text-sm">
              Workflow type
              <select className={inputClass} value={f.type} onChange={(e) => setF({ ...f, type: e.target.value })}>
                {WORKFLOW_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </label>
            <TimeRange from={f.from} to={f.to} onChange={(k, v) => setF({ ...f, [k]: v })} />
          </div>
        )}
        <div>
          <Button type="submit" disabled={replay.isPending}>
            {replay.isPending ? "Replaying…" : "Replay"}
          </Button>
        </div>
      </form>
      <FormError error={replay.error} />
      <FormError error={history.error} />
      {replay.data && (
        <div className="mt-3">
          <p role="status" className="text-sm">
            {replay.data.deterministic} deterministic, {replay.data.diverged} diverged of {replay.data.requested}
          </p>
          <table className="mt-2 min-w-full text-left text-sm">
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">Workflow</th>
                <th className="px-3 py-2">Type</th>
                <th className="px-3 py-2">Outcome</th>
                <th className="px-3 py-2">History</th>
              </tr>
            </thead>
            <tbody>
              {replay.data.results.map((r) => (
                <tr key={r.workflowId} className="border-t border-slate-100 align-top">
                  <td className="px-3 py-2 font-mono text-xs">{r.workflowId}</td>
                  <td className="px-3 py-2">{r.workflowType ?? "—"}</td>
                  <td className={`px-3 py-2 ${tone[r.outcome]}`}>
                    {r.outcome}
                    {r.eventId != null && ` at event ${r.eventId}`}
                    {r.reason && <div className="text-xs text-slate-600">{r.reason}</div>}
                  </td>
                  <td className="px-3 py-2">
                    {r.outcome !== "not_found" && (
                      <Button
                        onClick={() => history.mutate(r.workflowId)}
                        aria-label={`Download history of ${r.workflowId}`}
                      >
                        Download
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

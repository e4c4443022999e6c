import { useMemo, useState } from "react";
import { PlanNote, usePlan } from "../features/plan";
import { useParams } from "react-router-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import CodeMirror from "@uiw/react-codemirror";
import { json } from "@codemirror/lang-json";
import { linter, lintGutter, type Diagnostic } from "@codemirror/lint";
import type { Text } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { api, ApiError, type OpaError } from "../api/client";
import type { Policy, Schemas, With } from "../api/types";
import { Button } from "../components/Button";
import { ErrorState, FormError, Loading } from "../components/States";
import { stamp } from "../components/time";
import { useSession } from "../auth/session";
import { diffLines } from "./diff";
import { queryKeys } from "../api/keys";
import { useOnChange } from "../components/useOnChange";
import { WhatIf } from "./WhatIf";

/** OPA's errors as editor diagnostics at their line and column. */
export function diagnostics(doc: Text, errors: OpaError[]): Diagnostic[] {
  return errors
    .filter((e) => e.location && e.location.row >= 1 && e.location.row <= doc.lines)
    .map((e) => {
      const line = doc.line(e.location!.row);
      const from = Math.min(line.from + Math.max(0, e.location!.col - 1), line.to);
      return { from, to: Math.max(from, line.to), severity: "error", message: `${e.code}: ${e.message}` };
    });
}

export function PolicyPage() {
  const { name = "" } = useParams();
  const { can } = useSession();
  const plan = usePlan();
  const client = useQueryClient();
  const policy = useQuery({ queryKey: queryKeys.policy(name), queryFn: () => api<Policy>(`/policies/${name}`) });
  const [text, setText] = useState("");
  const [opaErrors, setOpaErrors] = useState<OpaError[]>([]);
  useOnChange(policy.data, (data) => {
    if (data) setText(data.rego);
  });
  const save = useMutation({
    mutationFn: () => api<Policy>(`/policies/${name}`, { method: "PUT", body: { rego: text } }),
    onMutate: () => setOpaErrors([]),
    onError: (e) => setOpaErrors(e instanceof ApiError ? e.opaErrors : []),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.policy(name) }),
  });
  const lint = useMemo(
    () => [
      EditorView.contentAttributes.of({ "aria-label": "Rego", tabindex: "0" }),
      lintGutter(),
      linter((view) => diagnostics(view.state.doc, opaErrors), { delay: 0 }),
    ],
    [opaErrors],
  );

  if (policy.isPending) return <Loading what="the policy" />;
  if (policy.isError) return <ErrorState error={policy.error} />;
  const p = policy.data;
  return (
    <section aria-labelledby="policy-title" className="space-y-4">
      <div className="flex flex-wrap items-baseline gap-3">
        <h1 id="policy-title" className="text-2xl font-semibold">
          Policy {p.name}
        </h1>
        <span className="text-sm text-slate-500">
          active version {p.version}, {stamp(p.createdAt)}
        </span>
      </div>
      <div className="rounded border border-slate-200 bg-white">
        <CodeMirror value={text} onChange={setText} height="420px" extensions={lint} editable={can("policies:write")} />
      </div>
      {opaErrors.length > 0 && (
        <ul role="alert" aria-label="OPA errors" className="space-y-1 text-sm text-red-800">
          {opaErrors.map((e, i) => (
            <li key={i}>
              line {e.location?.row}, column {e.location?.col}: {e.message} ({e.code})
            </li>
          ))}
        </ul>
      )}
      {can("policies:write") && (
        <div className="flex items-center gap-3">
          <Button
            variant="primary"
            onClick={() => save.mutate()}
            disabled={save.isPending || !plan.has("FeatureValuesGovernance")}
          >
            {save.isPending ? "Publishing…" : "Publish"}
          </Button>
          {save.data && (
            <span role="status" className="text-sm text-green-800">
              {save.data.changed ? `Published version ${save.data.version}` : "No change"}
            </span>
          )}
          <PlanNote plan={plan} gate="FeatureValuesGovernance" />
        </div>
      )}
      {can("policies:write") && (
        <WhatIf name={p.name} draft={text} disabled={!plan.has("FeatureValuesGovernance")} onOpaErrors={setOpaErrors} />
      )}
      {opaErrors.length === 0 && <FormError error={save.error} />}
      <div className="grid gap-4 lg:grid-cols-2">
        <Versions policy={p} />
        <Evaluate name={p.name} />
      </div>
    </section>
  );
}

function Versions({ policy }: { policy: Policy }) {
  const versions = policy.versions ?? [];
  const [a, setA] = useState(versions[1]?.version ?? policy.version);
  const [b, setB] = useState(policy.version);
  const left = useQuery({
    queryKey: queryKeys.policyVersion(policy.name, a),
    queryFn: () => api<Policy>(`/policies/${policy.name}/versions/${a}`),
  });
  const right = useQuery({
    queryKey: queryKeys.policyVersion(policy.name, b),
    queryFn: () => api<Policy>(`/policies/${policy.name}/versions/${b}`),
  });
  const diff = left.data && right.data ? diffLines(left.data.rego, right.data.rego) : [];
  const select = (value: number, set: (v: number) => void, label: string) => (
    <label className="text-sm">
      {label}
      <select
        className="ml-1 rounded border border-slate-300 px-1"
        value={value}
        onChange={(e) => set(Number(e.target.value))}
      >
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            v{v.version}
            {v.active ? " (active)" : ""}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="rounded border border-slate-200 bg-white p-3">
      <h2 className="font-medium">Versions</h2>
      <div className="mt-2 flex gap-3">
        {select(a, setA, "Compare")}
        {select(b, setB, "with")}
      </div>
      <pre role="region" aria-label="Version diff" className="mt-2 max-h-80 overflow-auto text-xs">
        {diff
          .filter((d) => d.kind !== "same")
          .map((d, i) => (
            <div key={i} className={d.kind === "add" ? "bg-green-50 text-green-900" : "bg-red-50 text-red-900"}>
              {d.kind === "add" ? "+ " : "- "}
              {d.text}
            </div>
          ))}
        {diff.length > 0 && diff.every((d) => d.kind === "same") && <span className="text-slate-500">identical</span>}
      </pre>
    </div>
  );
}

const INPUT_EXTENSIONS = [json(), EditorView.contentAttributes.of({ "aria-label": "Input JSON", tabindex: "0" })];

function Evaluate({ name }: { name: string }) {
  const [input, setInput] = useState(
    '{\n  "command": {"type": "scale"},\n  "cluster": {"labels": {"tier": "production"}}\n}',
  );
  const run = useMutation({
    mutationFn: () =>
      api<Omit<With<Schemas["EvaluateResponse"], "version">, "decision"> & { decision?: unknown }>(
        `/policies/${name}/evaluate`,
        { body: { input: JSON.parse(input) } },
      ),
  });
  return (
    <div className="rounded border border-slate-200 bg-white p-3">
      <h2 className="font-medium">Evaluate</h2>
      <p className="text-xs text-slate-500">A dry run of the active version; nothing is recorded.</p>
      <div className="mt-2 rounded border border-slate-200">
        <CodeMirror value={input} onChange={setInput} height="160px" extensions={INPUT_EXTENSIONS} />
      </div>
      <Button className="mt-2" onClick={() => run.mutate()} disabled={run.isPending}>
        Evaluate
      </Button>
      <FormError error={run.error} />
      {run.data && (
        <pre
          role="region"
          aria-label="Decision"
          className="mt-2 max-h-60 overflow-auto rounded bg-slate-50 p-2 text-xs"
        >
          {JSON.stringify(run.data.decision, null, 2)}
        </pre>
      )}
    </div>
  );
}

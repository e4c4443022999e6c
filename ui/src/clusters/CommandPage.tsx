import { Link, useParams } from "react-router-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Command } from "../api/types";
import { Badge, StatusBadge } from "../components/Badge";
import { Button } from "../components/Button";
import { ErrorState, FormError, Loading } from "../components/States";
import { stamp } from "../components/time";
import { useSession } from "../auth/session";
import { EvidenceLink } from "../audit/EvidenceLink";
import { queryKeys } from "../api/keys";

const OPEN = ["pending", "pending_approval", "executing"];

/** One command: its decision with the policy version, the votes, and the timeline, live. */
export function CommandPage() {
  const { id = "" } = useParams();
  const { me, can } = useSession();
  const client = useQueryClient();
  const q = useQuery({
    queryKey: queryKeys.command(id),
    queryFn: () => api<Command>(`/commands/${id}`),
    refetchInterval: (query) => (query.state.data && !OPEN.includes(query.state.data.status) ? false : 2_000),
  });
  const cancel = useMutation({
    mutationFn: () => api(`/commands/${id}/cancel`, { method: "POST" }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.command(id) }),
  });
  if (q.isPending) return <Loading what="the command" />;
  if (q.isError) return <ErrorState error={q.error} />;
  const c = q.data;
  const mine = me?.id === c.requester?.id;
  return (
    <section aria-labelledby="command-title" className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <h1 id="command-title" className="text-xl font-semibold">
          {c.type} {c.target.kind} {c.target.namespace}/{c.target.name}
        </h1>
        <StatusBadge status={c.status} />
        {c.breakGlass && <Badge tone="red">break-glass</Badge>}
        <Link className="text-sm text-indigo-700 underline" to={`/clusters/${c.clusterId}/commands`}>
          back to the cluster
        </Link>
        {can("audit:read") && (
          <EvidenceLink path={`/commands/${id}/evidence`} filename={`command-${id}.evidence.json`} />
        )}
      </div>
      <p className="text-sm text-slate-600">
        Requested by {c.requester?.name} on {stamp(c.createdAt)}
        {c.reason ? ` — ${c.reason}` : ""}
        {Object.keys(c.params).length > 0 &&
          ` — ${Object.entries(c.params)
            .map(([k, v]) => `${k}=${v}`)
            .join(", ")}`}
      </p>
      {c.breakGlassJustification && <p className="text-sm">Justification: {c.breakGlassJustification}</p>}
      {c.status === "frozen" ? (
        <div role="alert" className="rounded bg-red-50 p-2 text-sm text-red-900">
          <p className="font-medium">A freeze window holds this command; it was not run.</p>
          <p>{c.statusDetail}</p>
          <p>Request it again after the window ends, or now as break-glass with a written justification.</p>
        </div>
      ) : (
        c.statusDetail && !c.output && !c.error && <p className="text-sm">{c.statusDetail}</p>
      )}
      {mine && c.status === "pending_approval" && (
        <p className="rounded bg-yellow-50 p-2 text-sm text-yellow-900">
          You requested this command: four-eyes rules mean someone else must approve it.
        </p>
      )}
      {mine && (c.status === "pending" || c.status === "pending_approval") && (
        <div>
          <Button variant="danger" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
            Cancel command
          </Button>
          <FormError error={cancel.error} />
        </div>
      )}
      {c.decision && (
        <div className="rounded border border-slate-200 bg-white p-3 text-sm">
          <h2 className="font-medium">Policy decision</h2>
          <p>
            <strong>{c.decision.outcome}</strong> by policy {c.decision.policy} version {c.decision.version}
          </p>
          {c.decision.sha256 && (
            <p className="text-xs text-slate-600">
              policy text SHA-256 <code>{c.decision.sha256}</code>
            </p>
          )}
          <ul className="list-disc pl-5">
            {c.decision.reasons.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      )}
      {c.approvals?.map((a) => (
        <div key={a.id} className="rounded border border-slate-200 bg-white p-3 text-sm">
          <h2 className="font-medium">
            {a.kind === "break_glass_review" ? "Break-glass review" : "Approval"} — {a.status},{" "}
            {a.votes.filter((v) => v.counted && v.approve).length} of {a.requiredApprovers}
          </h2>
          <ul>
            {a.votes.map((v) => (
              <li key={v.memberId + v.at}>
                {v.name} {v.approve ? "approved" : "rejected"} {v.comment ? `— “${v.comment}”` : ""}{" "}
                {!v.counted && v.why ? `(not counted: ${v.why})` : ""}
              </li>
            ))}
          </ul>
        </div>
      ))}
      {(c.output || c.error) && (
        <pre className="overflow-auto rounded bg-slate-900 p-3 text-xs text-slate-100">{c.error ?? c.output}</pre>
      )}
      <div className="rounded border border-slate-200 bg-white p-3">
        <h2 className="text-sm font-medium">Timeline</h2>
        <ol className="mt-2 space-y-1 text-sm">
          {c.timeline?.map((e) => (
            <li key={e.seq} className="grid grid-cols-[10rem_8rem_1fr] gap-2">
              <span className="text-slate-500">{stamp(e.at)}</span>
              <span>
                <StatusBadge status={e.status} />
              </span>
              <span>
                <span className="text-slate-500">{e.actor}:</span> {e.detail}
              </span>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

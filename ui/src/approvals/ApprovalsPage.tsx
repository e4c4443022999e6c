import { useState } from "react";
import { PlanNote, usePlan } from "../features/plan";
import { Link } from "react-router-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { ApprovalItem, Page } from "../api/types";
import { Badge } from "../components/Badge";
import { Button, inputClass } from "../components/Button";
import { changeSummary } from "../components/changeSummary";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { relative } from "../components/time";
import { queryKeys } from "../api/keys";

const KIND_LABEL: Record<string, string> = {
  command: "Command",
  release: "Release",
  promotion: "Promotion",
  rollback: "Rollback",
  break_glass_review: "Break-glass review",
};

/** One inbox for commands, releases, promotions, rollbacks and break-glass reviews; live. */
export function ApprovalsPage() {
  const inbox = useQuery({
    queryKey: queryKeys.approvals(),
    queryFn: () => api<Page<ApprovalItem>>("/approvals"),
    refetchInterval: 3_000,
  });
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title" className="text-2xl font-semibold">
        Approvals
      </h1>
      <p className="mt-1 text-sm text-slate-600">
        Requests you may decide: never your own (four eyes), and only where the policy makes you eligible.
      </p>
      <div className="mt-4 space-y-3">
        {inbox.isPending ? (
          <Loading what="the inbox" />
        ) : inbox.isError ? (
          <ErrorState error={inbox.error} />
        ) : inbox.data.items.length === 0 ? (
          <Empty>Nothing waits for you.</Empty>
        ) : (
          inbox.data.items.map((item) => <ApprovalCard key={item.id} item={item} />)
        )}
      </div>
    </section>
  );
}

function ApprovalCard({ item }: { item: ApprovalItem }) {
  const client = useQueryClient();
  const [comment, setComment] = useState("");
  const [rejecting, setRejecting] = useState(false);
  const plan = usePlan();
  // Voting on a rollback is the rollback-approval feature; a plan without it cannot vote.
  const gated = item.kind === "rollback" && !plan.has("FeatureRollbackApproval");
  const vote = useMutation({
    mutationFn: (approve: boolean) =>
      api(`/approvals/${item.id}/${approve ? "approve" : "reject"}`, { body: approve && !comment ? {} : { comment } }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.approvals() }),
  });
  const s = item.subject;
  const link =
    s.type === "command" && s.clusterId
      ? `/clusters/${s.clusterId}/commands`
      : s.projectId
        ? `/projects/${s.projectId}/releases`
        : null;
  return (
    <article aria-label={item.summary} className="rounded border border-slate-200 bg-white p-4">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone="blue">{KIND_LABEL[item.kind] ?? item.kind}</Badge>
        {s.breakGlass && <Badge tone="red">break-glass</Badge>}
        <h2 className="font-medium">{item.summary}</h2>
      </div>
      <dl className="mt-2 grid grid-cols-[9rem_1fr] gap-x-2 gap-y-1 text-sm">
        <dt className="text-slate-500">Requested by</dt>
        <dd>{s.requester ?? "—"}</dd>
        {s.reason && (
          <>
            <dt className="text-slate-500">Reason</dt>
            <dd>{s.reason}</dd>
          </>
        )}
        {s.justification && (
          <>
            <dt className="text-slate-500">Justification</dt>
            <dd>{s.justification}</dd>
          </>
        )}
        {s.environments && (
          <>
            <dt className="text-slate-500">Environments</dt>
            <dd>{s.environments.join(", ")}</dd>
          </>
        )}
        {s.changes && (
          <>
            <dt className="text-slate-500">Changes</dt>
            <dd className={s.changes.sensitive > 0 ? "font-medium" : undefined}>{changeSummary(s.changes)}</dd>
          </>
        )}
        <dt className="text-slate-500">Approvals</dt>
        <dd>
          {item.approvals} of {item.requiredApprovers} (eligible:{" "}
          {[...item.approverRoles, ...item.approverTeams.map((t) => `team ${t}`)].join(", ")})
        </dd>
        <dt className="text-slate-500">Expires</dt>
        <dd>{relative(item.expiresAt)}</dd>
      </dl>
      {link && (
        <Link className="mt-1 inline-block text-sm text-indigo-700 underline" to={link}>
          Open
        </Link>
      )}
      <div className="mt-3 space-y-2">
        <label className="block text-sm">
          Comment {rejecting && <span className="text-red-700">(required to reject)</span>}
          <input className={inputClass} value={comment} onChange={(e) => setComment(e.target.value)} />
        </label>
        <div className="flex gap-2">
          <Button variant="primary" disabled={vote.isPending || gated} onClick={() => vote.mutate(true)}>
            Approve
          </Button>
          <Button
            variant="danger"
            disabled={vote.isPending || gated}
            onClick={() => {
              setRejecting(true);
              if (comment.trim()) vote.mutate(false);
            }}
          >
            Reject
          </Button>
        </div>
        {item.kind === "rollback" && <PlanNote plan={plan} gate="FeatureRollbackApproval" />}
        <FormError error={vote.error} />
      </div>
    </article>
  );
}

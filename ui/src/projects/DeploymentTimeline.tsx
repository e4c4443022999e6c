import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { DeploymentChanges, TimelineEvent } from "../api/types";
import { StatusBadge } from "../components/Badge";
import { changeSummary } from "../components/changeSummary";
import { ErrorState, Loading } from "../components/States";
import { stamp } from "../components/time";

/**
 * A deployment's timeline, after what it changes on the deploy branches (once the policy counted
 * it): the governance steps, the commits and, for clusters in direct delivery,
 * what their agents did to each object (applied, pruned, failed, with its rollout health).
 */
export function DeploymentTimeline({ projectId, deploymentId }: { projectId: string; deploymentId: string }) {
  const d = useQuery({
    queryKey: ["deployment", projectId, deploymentId],
    queryFn: () =>
      api<{ status: string; timeline: TimelineEvent[]; changes?: DeploymentChanges | null }>(
        `/projects/${projectId}/deployments/${deploymentId}`,
      ),
    refetchInterval: (q) => (["pending", "pending_approval", "deploying"].includes(q.state.data?.status ?? "pending") ? 2_000 : false),
  });
  if (d.isPending) return <Loading what="the timeline" />;
  if (d.isError) return <ErrorState error={d.error} />;
  const changes = d.data.changes;
  return (
    <>
      {changes && (
        <p aria-label="What the deployment changes" className={`mt-1 text-xs ${changes.sensitive > 0 ? "font-medium" : ""}`}>
          <span className="text-slate-500">changes:</span> {changeSummary(changes)}
        </p>
      )}
      <ol aria-label="Deployment timeline" className="mt-1 space-y-1 text-xs">
        {d.data.timeline.map((e) => (
          <li key={e.seq} className="grid grid-cols-[10rem_7rem_1fr] gap-2">
            <span className="text-slate-500">{stamp(e.at)}</span>
            <span>
              <StatusBadge status={e.status} />
            </span>
            <span className={/^(failed|pruned)\b/.test(e.detail) ? "font-medium" : undefined}>
              <span className="text-slate-500">{e.actor}:</span> {e.detail}
            </span>
          </li>
        ))}
      </ol>
    </>
  );
}

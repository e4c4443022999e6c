import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { ClusterRun, DeploymentChanges, Schemas, TimelineEvent, With } from "../api/types";
import { Badge, StatusBadge } from "../components/Badge";
import { changeSummary } from "../components/changeSummary";
import { ErrorState, Loading } from "../components/States";
import { stamp } from "../components/time";
import { queryKeys } from "../api/keys";

/**
 * A deployment's timeline, after what it changes on the deploy branches (once the policy counted
 * it): the governance steps, the commits and, for clusters in direct delivery,
 * what their agents did to each object (applied, pruned, failed, with its rollout health). For an
 * environment whose deployments are verified, what each Flux or Argo CD cluster ran of it.
 */
export function DeploymentTimeline({ projectId, deploymentId }: { projectId: string; deploymentId: string }) {
  const d = useQuery({
    queryKey: queryKeys.deployment(projectId, deploymentId),
    queryFn: () =>
      api<
        Omit<With<Schemas["DeploymentDetail"], "status" | "timeline">, "timeline" | "changes" | "clusters"> & {
          timeline: TimelineEvent[];
          changes?: DeploymentChanges;
          clusters?: ClusterRun[];
        }
      >(`/projects/${projectId}/deployments/${deploymentId}`),
    refetchInterval: (q) =>
      ["pending", "pending_approval", "deploying"].includes(q.state.data?.status ?? "pending") ? 2_000 : false,
  });
  if (d.isPending) return <Loading what="the timeline" />;
  if (d.isError) return <ErrorState error={d.error} />;
  const changes = d.data.changes;
  const clusters = d.data.clusters ?? [];
  return (
    <>
      {d.data.status === "degraded" && (
        <p role="note" className="mt-1 rounded bg-orange-50 p-2 text-xs text-orange-900">
          Degraded: the commits are written, but a cluster did not run them in time. Promoting from here needs
          break-glass.
        </p>
      )}
      {changes && (
        <p
          aria-label="What the deployment changes"
          className={`mt-1 text-xs ${changes.sensitive > 0 ? "font-medium" : ""}`}
        >
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
      {clusters.length > 0 && <ClusterRuns runs={clusters} />}
    </>
  );
}

/** What each Flux or Argo CD cluster ran of the deployment, when the hub last looked. */
function ClusterRuns({ runs }: { runs: ClusterRun[] }) {
  return (
    <table aria-label="What each cluster ran" className="mt-2 w-full text-left text-xs">
      <thead className="text-slate-500">
        <tr>
          <th className="pr-2 font-medium">Cluster</th>
          <th className="pr-2 font-medium">Mode</th>
          <th className="pr-2 font-medium">Verified</th>
          <th className="pr-2 font-medium">Revision</th>
          <th className="pr-2 font-medium">Health or reason</th>
          <th className="font-medium">Verified at</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={`${r.environment}/${r.cluster}`} className="border-t border-slate-100 align-top">
            <td className="pr-2">
              {r.cluster} <span className="text-slate-500">({r.environment})</span>
            </td>
            <td className="pr-2">{r.mode}</td>
            <td className="pr-2">
              {r.verified ? <Badge tone="green">verified</Badge> : <Badge tone="orange">not verified</Badge>}
            </td>
            <td className="pr-2">
              {r.revision ? (
                <code title={r.revision}>{r.revision.slice(0, 12)}</code>
              ) : (
                <span className="text-slate-500">none yet</span>
              )}
            </td>
            <td className="pr-2">
              {/* The adapter's own words (e.g. "Synced, Healthy", "Ready True"), then why it is not verified. */}
              {[r.health, r.reason].filter(Boolean).join(" — ")}
              {r.deliverer && <div className="text-slate-500">{r.deliverer}</div>}
            </td>
            <td>
              {r.verifiedAt ? (
                stamp(r.verifiedAt)
              ) : (
                <span className="text-slate-500">
                  {r.observedAt ? `last looked ${stamp(r.observedAt)}` : "not yet"}
                </span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

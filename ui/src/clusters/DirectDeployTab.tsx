import { Link } from "react-router-dom";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, Schemas, With } from "../api/types";
import { StatusBadge } from "../components/Badge";
import { Empty, ErrorState, Loading } from "../components/States";
import { relative } from "../components/time";
import { queryKeys } from "../api/keys";

type DirectApply = With<
  Schemas["ApplyView"],
  | "id"
  | "deploymentId"
  | "projectId"
  | "project"
  | "environment"
  | "commit"
  | "status"
  | "objects"
  | "applied"
  | "pruned"
  | "failed"
  | "createdAt"
>;

type PlacedObject = With<
  Schemas["ObjectView"],
  "projectId" | "project" | "environment" | "tenant" | "apiVersion" | "kind" | "namespace" | "name" | "appliedAt"
>;

type DirectDeploys = Omit<With<Schemas["DirectDeploys"], "capability" | "objectsTruncated">, "applies" | "objects"> & {
  applies: DirectApply[];
  objects: PlacedObject[];
};

/** What the agent applied in direct delivery mode: the latest applies and the objects it placed. */
export function DirectDeployTab({ cluster }: { cluster: Cluster }) {
  const q = useQuery({
    queryKey: queryKeys.directDeploys(cluster.id),
    queryFn: () => api<DirectDeploys>(`/clusters/${cluster.id}/direct-deploys`),
    refetchInterval: 5_000,
  });
  if (q.isPending) return <Loading what="direct deploys" />;
  if (q.isError) return <ErrorState error={q.error} />;
  const d = q.data;
  return (
    <div className="space-y-4">
      {!d.capability && (
        <p role="note" className="rounded border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          This cluster's agent has not announced <code>direct.deploy</code>: deployments to environments that deliver to
          it directly fail. Install the agent with <code>capabilities.directDeploy=true</code> and{" "}
          <code>rbac.profile=readwrite</code>.
        </p>
      )}
      <section aria-labelledby="direct-applies">
        <h2 id="direct-applies" className="mb-2 font-medium">
          Applies
        </h2>
        {d.applies.length === 0 ? (
          <Empty>No deployment has been applied to this cluster directly.</Empty>
        ) : (
          <table
            aria-label="Direct applies"
            className="min-w-full rounded border border-slate-200 bg-white text-left text-sm"
          >
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">Project</th>
                <th className="px-3 py-2">Environment</th>
                <th className="px-3 py-2">Commit</th>
                <th className="px-3 py-2">Outcome</th>
                <th className="px-3 py-2">Objects</th>
                <th className="px-3 py-2">When</th>
              </tr>
            </thead>
            <tbody>
              {d.applies.map((a) => (
                <tr key={a.id} className="border-t border-slate-100 align-top">
                  <td className="px-3 py-2">
                    <Link className="text-indigo-700 hover:underline" to={`/projects/${a.projectId}/releases`}>
                      {a.project}
                    </Link>
                  </td>
                  <td className="px-3 py-2">{a.environment}</td>
                  <td className="px-3 py-2">
                    <code className="text-xs">{a.commit.slice(0, 12)}</code>
                  </td>
                  <td className="px-3 py-2">
                    <StatusBadge status={a.status} />
                    {a.error && <div className="text-xs text-red-700">{a.error}</div>}
                  </td>
                  <td className="px-3 py-2">
                    {a.applied} applied, {a.pruned} pruned{a.failed > 0 && `, ${a.failed} failed`}
                  </td>
                  <td className="px-3 py-2">{relative(a.finishedAt ?? a.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="direct-objects">
        <h2 id="direct-objects" className="mb-2 font-medium">
          Objects placed (pruned when a release no longer holds them)
        </h2>
        {d.objects.length === 0 ? (
          <Empty>Direct deploys placed nothing on this cluster.</Empty>
        ) : (
          <ul aria-label="Objects placed by direct deploys" className="space-y-1 text-sm">
            {d.objects.map((o) => (
              <li
                key={`${o.projectId}/${o.environment}/${o.tenant}/${o.apiVersion}/${o.kind}/${o.namespace}/${o.name}`}
              >
                <span className="text-slate-500">
                  {o.project} · {o.environment} · {o.tenant}:
                </span>{" "}
                {o.kind} {o.namespace ? `${o.namespace}/` : ""}
                {o.name}
              </li>
            ))}
            {d.objectsTruncated && <li className="text-slate-500">…and more</li>}
          </ul>
        )}
      </section>
    </div>
  );
}

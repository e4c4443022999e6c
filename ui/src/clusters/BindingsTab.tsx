import { Link } from "react-router-dom";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, Page, Schemas, With } from "../api/types";
import { SyncBadge } from "../components/Badge";
import { Empty, ErrorState, Loading } from "../components/States";
import { relative } from "../components/time";
import { AdapterWiring } from "./AdapterWiring";
import { queryKeys } from "../api/keys";

type Binding = Omit<
  With<Schemas["DeliveryController.BindingView"], "projectId" | "project" | "tenant" | "environment" | "syncStatus">,
  "lastDelivery"
> & { lastDelivery?: With<Schemas["LastDelivery"], "commit" | "release" | "at"> };

/** Who delivers a binding, as the hub names it: an Argo CD Application, a Flux Kustomization, or the agent itself. */
export function deliverer(application: string): string {
  if (application === "direct apply") return "applied by the agent (direct mode)";
  if (application.startsWith("flux:")) return `Flux ${application.slice("flux:".length)}`;
  return `Argo CD ${application}`;
}

export function BindingsTab({ cluster }: { cluster: Cluster }) {
  const q = useQuery({
    queryKey: queryKeys.bindings(cluster.id),
    queryFn: () => api<Page<Binding>>(`/clusters/${cluster.id}/bindings`),
  });
  if (q.isPending) return <Loading what="bindings" />;
  if (q.isError) return <ErrorState error={q.error} />;
  if (q.data.items.length === 0)
    return (
      <>
        <Empty>No project delivers to this cluster.</Empty>
        <AdapterWiring cluster={cluster} />
      </>
    );
  return (
    <>
      <table className="min-w-full rounded border border-slate-200 bg-white text-left text-sm">
        <thead className="bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Project</th>
            <th className="px-3 py-2">Environment</th>
            <th className="px-3 py-2">Tenant</th>
            <th className="px-3 py-2">Last delivery</th>
            <th className="px-3 py-2">Sync</th>
          </tr>
        </thead>
        <tbody>
          {q.data.items.map((b) => (
            <tr key={`${b.projectId}/${b.environment}/${b.tenant}`} className="border-t border-slate-100">
              <td className="px-3 py-2">
                <Link className="text-indigo-700 hover:underline" to={`/projects/${b.projectId}/releases`}>
                  {b.project}
                </Link>
              </td>
              <td className="px-3 py-2">{b.environment}</td>
              <td className="px-3 py-2">{b.tenant}</td>
              <td className="px-3 py-2">
                {b.lastDelivery ? (
                  <>
                    release #{b.lastDelivery.release}{" "}
                    <code className="text-xs">{b.lastDelivery.commit.slice(0, 12)}</code> {relative(b.lastDelivery.at)}
                  </>
                ) : (
                  "—"
                )}
              </td>
              <td className="px-3 py-2">
                <SyncBadge status={b.syncStatus} />
                {b.application && <div className="text-xs text-slate-500">{deliverer(b.application)}</div>}
                {b.atLastDeployment === false && (
                  <div className="text-xs text-yellow-800">
                    runs <code>{b.syncedRevision?.slice(0, 12)}</code>, not the last deployment
                  </div>
                )}
                {b.atLastDeployment === true && <div className="text-xs text-slate-500">at the last deployment</div>}
                {b.syncReason && <div className="text-xs text-slate-500">{b.syncReason}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <AdapterWiring cluster={cluster} />
    </>
  );
}

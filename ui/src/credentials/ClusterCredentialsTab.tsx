import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, Page } from "../api/types";
import { StatusBadge } from "../components/Badge";
import { Empty, ErrorState, Loading } from "../components/States";
import { relative } from "../components/time";
import type { ClusterCredential } from "./types";
import { queryKeys } from "../api/keys";
import { DeniedByPolicy } from "./DeniedByPolicy";

/** The cluster page's Credentials tab: what the hub syncs here, per namespace (clusters:read). */
export function ClusterCredentialsTab({ cluster }: { cluster: Cluster }) {
  const q = useQuery({
    queryKey: queryKeys.clusterCredentials(cluster.id),
    queryFn: () => api<Page<ClusterCredential>>(`/clusters/${cluster.id}/credentials`),
    refetchInterval: 10_000,
  });
  if (q.isPending) return <Loading what="credentials" />;
  if (q.isError) return <ErrorState error={q.error} />;
  const syncCap = cluster.capabilities?.includes("credential.sync");
  if (q.data.items.length === 0)
    return (
      <Empty>
        No credential is synced to this cluster.
        {!syncCap && " Its agent does not have the credential.sync capability."}
      </Empty>
    );
  return (
    <table aria-label="Credentials" className="min-w-full rounded border border-slate-200 bg-white text-left text-sm">
      <thead className="bg-slate-50 text-xs uppercase text-slate-500">
        <tr>
          <th className="px-3 py-2">Credential</th>
          <th className="px-3 py-2">Target Namespace</th>
          <th className="px-3 py-2">Sync Status</th>
          <th className="px-3 py-2">Last Synced</th>
          <th className="px-3 py-2">Error</th>
        </tr>
      </thead>
      <tbody>
        {q.data.items.map((c) => (
          <tr key={`${c.credentialId}/${c.namespace}`} className="border-t border-slate-100">
            <td className="px-3 py-2">
              {c.name} <span className="text-xs text-slate-500">({c.type})</span>
            </td>
            <td className="px-3 py-2">{c.namespace}</td>
            <td className="px-3 py-2">
              <StatusBadge status={c.status} />
              {c.deniedByPolicy && <DeniedByPolicy />}
            </td>
            <td className="px-3 py-2">{c.lastSyncedAt ? relative(c.lastSyncedAt) : "never"}</td>
            <td className="px-3 py-2 text-red-800">{c.error ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

import { Link } from "react-router-dom";
import { useMutation, useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, Schemas, With } from "../api/types";
import { useSession } from "../auth/session";
import { HealthBadge, SyncBadge } from "../components/Badge";
import { Button } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { httpUrl } from "../components/links";
import { relative } from "../components/time";
import { queryKeys } from "../api/keys";

export type ArgoApplication = Omit<
  With<
    Schemas["Application"],
    "namespace" | "name" | "project" | "syncStatus" | "health" | "source" | "destination" | "history"
  >,
  "source" | "destination" | "history"
> & {
  source: With<Schemas["ArgoController.Source"], "repoURL" | "targetRevision">;
  destination: With<Schemas["Destination"], "namespace">;
  history: With<Schemas["HistoryEntry"], "id" | "revision">[];
};

/** The cluster's Argo CD Applications, live, with Force Sync and Hard Refresh as governed commands. */
export function ArgoTab({ cluster }: { cluster: Cluster }) {
  const { can } = useSession();
  const q = useQuery({
    queryKey: queryKeys.argocd(cluster.id),
    queryFn: () =>
      api<Omit<Schemas["Applications"], "items"> & { items: ArgoApplication[] }>(
        `/clusters/${cluster.id}/argocd/applications`,
      ),
    refetchInterval: 15_000,
    retry: false,
  });
  const command = useMutation({
    mutationFn: ({ type, app }: { type: "sync" | "refresh"; app: ArgoApplication }) =>
      api<With<Schemas["CommandController.Accepted"], "id" | "status">>(`/clusters/${cluster.id}/commands`, {
        method: "POST",
        body: {
          type,
          target: { namespace: app.namespace, kind: "Application", name: app.name },
          reason: type === "sync" ? "Force Sync from the Argo CD tab" : "Hard Refresh from the Argo CD tab",
        },
      }),
  });
  if (q.isPending) return <Loading what="Argo CD applications" />;
  if (q.isError) return <ErrorState error={q.error} />;
  const writable = can("commands:create") && cluster.capabilities.includes("argocd.write");
  return (
    <div className="space-y-3">
      {q.data.warning && <p className="text-sm text-yellow-800">{q.data.warning}</p>}
      {command.data && (
        <p className="text-sm">
          Requested:{" "}
          <Link className="underline" to={`/commands/${command.data.id}`}>
            command {command.data.id.slice(0, 8)}
          </Link>{" "}
          ({command.data.status})
        </p>
      )}
      <FormError error={command.error} />
      {q.data.items.length === 0 ? (
        <Empty>No Argo CD application in this cluster.</Empty>
      ) : (
        <div className="overflow-x-auto">
          <table
            aria-label="Argo CD applications"
            className="min-w-full rounded border border-slate-200 bg-white text-left text-sm"
          >
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">Application</th>
                <th className="px-3 py-2">Sync</th>
                <th className="px-3 py-2">Health</th>
                <th className="px-3 py-2">Source</th>
                <th className="px-3 py-2">Destination</th>
                <th className="px-3 py-2">Last sync</th>
                <th className="px-3 py-2">Actions</th>
              </tr>
            </thead>
            <tbody>
              {q.data.items.map((a) => (
                <tr key={`${a.namespace}/${a.name}`} className="border-t border-slate-100 align-top">
                  <td className="px-3 py-2">
                    <div className="font-medium">{a.name}</div>
                    <div className="text-xs text-slate-500">
                      {a.namespace} · project {a.project}
                    </div>
                  </td>
                  <td className="px-3 py-2">
                    <SyncBadge status={a.syncStatus} />
                  </td>
                  <td className="px-3 py-2">
                    <HealthBadge health={a.health} />
                    {a.healthMessage && <div className="text-xs text-slate-600">{a.healthMessage}</div>}
                  </td>
                  <td className="px-3 py-2 text-xs">
                    <div className="break-all">{a.source.repoURL}</div>
                    <div>
                      {a.source.path ?? a.source.chart} @ {a.source.targetRevision || "HEAD"}
                    </div>
                  </td>
                  <td className="px-3 py-2 text-xs">
                    {a.destination.name ?? a.destination.server} / {a.destination.namespace}
                  </td>
                  <td className="px-3 py-2 text-xs">
                    {a.lastSync?.at ? relative(a.lastSync.at) : "—"} {a.lastSync?.phase}
                    {a.syncedRevision && (
                      <div>
                        <code>{a.syncedRevision.slice(0, 12)}</code>
                      </div>
                    )}
                    <div className="text-slate-500">{a.history.length} in history</div>
                  </td>
                  <td className="px-3 py-2">
                    <div className="flex flex-wrap gap-2">
                      {writable && (
                        <>
                          <Button
                            variant="secondary"
                            aria-label={`Force Sync ${a.name}`}
                            disabled={command.isPending}
                            onClick={() => command.mutate({ type: "sync", app: a })}
                          >
                            Force Sync
                          </Button>
                          <Button
                            variant="secondary"
                            aria-label={`Hard Refresh ${a.name}`}
                            disabled={command.isPending}
                            onClick={() => command.mutate({ type: "refresh", app: a })}
                          >
                            Hard Refresh
                          </Button>
                        </>
                      )}
                      {httpUrl(a.url) && (
                        <a
                          className="text-sm text-indigo-700 hover:underline"
                          href={httpUrl(a.url) ?? undefined}
                          target="_blank"
                          rel="noopener noreferrer"
                        >
                          View in Argo CD
                        </a>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

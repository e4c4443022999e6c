import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, Schemas, With } from "../api/types";
import { Badge } from "../components/Badge";
import { ErrorState, Loading } from "../components/States";
import { relative } from "../components/time";
import { queryKeys } from "../api/keys";

type WiredObject = With<Schemas["WiredObject"], "apiVersion" | "kind" | "namespace" | "name">;

type Wiring = Omit<
  With<Schemas["Wiring"], "project" | "environment" | "tenant" | "message" | "updatedAt">,
  "adapter" | "outcome" | "objects"
> & { adapter: "flux" | "argocd"; outcome: "wired" | "failed" | "pending"; objects: WiredObject[] };

type Adapters = Omit<Schemas["Adapters"], "adapter" | "bindings"> & { adapter: "auto" | "manual"; bindings: Wiring[] };

const OUTCOME_TONE = { wired: "green", failed: "red", pending: "yellow" } as const;

/** The Flux or Argo CD objects the hub keeps on the cluster for each binding. */
export function AdapterWiring({ cluster }: { cluster: Cluster }) {
  const client = useQueryClient();
  const key = queryKeys.adapters(cluster.id);
  const q = useQuery({ queryKey: key, queryFn: () => api<Adapters>(`/clusters/${cluster.id}/adapters`) });
  const setMode = useMutation({
    mutationFn: (adapter: "auto" | "manual") =>
      api<Adapters>(`/clusters/${cluster.id}/adapters`, { method: "PUT", body: { adapter } }),
    onSuccess: (data) => client.setQueryData(key, data),
  });
  const rewire = useMutation({
    mutationFn: () => api<{ status: string }>(`/clusters/${cluster.id}/adapters/rewire`, { method: "POST" }),
    onSuccess: () => client.invalidateQueries({ queryKey: key }),
  });
  if (q.isPending) return <Loading what="adapter wiring" />;
  if (q.isError) return <ErrorState error={q.error} />;
  const manual = q.data.adapter === "manual";
  return (
    <section aria-label="Runtime adapter" className="mt-6 space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        <h3 className="text-sm font-semibold text-slate-800">Runtime adapter</h3>
        <span className="text-sm text-slate-600">
          {manual
            ? "Manual: the cluster's operators keep the Flux and Argo CD objects; the hub makes none."
            : "The hub keeps each binding's Flux or Argo CD objects on this cluster."}
        </span>
        <button
          type="button"
          className="rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50"
          disabled={setMode.isPending}
          onClick={() => setMode.mutate(manual ? "auto" : "manual")}
        >
          {manual ? "Let the hub keep them" : "Set to manual"}
        </button>
        {!manual && (
          <button
            type="button"
            className="rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50"
            disabled={rewire.isPending}
            onClick={() => rewire.mutate()}
          >
            Wire again
          </button>
        )}
        {rewire.isSuccess && <span className="text-xs text-slate-500">asked; reload in a moment</span>}
      </div>
      {setMode.isError && <ErrorState error={setMode.error} />}
      {rewire.isError && <ErrorState error={rewire.error} />}
      {q.data.bindings.length === 0 ? (
        <p className="text-sm text-slate-500">
          {manual ? "" : "No binding of this cluster is delivered through Flux or Argo CD yet."}
        </p>
      ) : (
        <table
          aria-label="Adapter wiring"
          className="min-w-full rounded border border-slate-200 bg-white text-left text-sm"
        >
          <thead className="bg-slate-50 text-xs uppercase text-slate-500">
            <tr>
              <th className="px-3 py-2">Binding</th>
              <th className="px-3 py-2">Adapter</th>
              <th className="px-3 py-2">Wiring</th>
              <th className="px-3 py-2">Objects</th>
            </tr>
          </thead>
          <tbody>
            {q.data.bindings.map((w) => (
              <tr key={`${w.project}/${w.environment}/${w.tenant}`} className="border-t border-slate-100 align-top">
                <td className="px-3 py-2">
                  {w.project} · {w.environment} · {w.tenant}
                </td>
                <td className="px-3 py-2">{w.adapter === "flux" ? "Flux" : "Argo CD"}</td>
                <td className="px-3 py-2">
                  <Badge tone={OUTCOME_TONE[w.outcome] ?? "gray"}>{w.outcome}</Badge>
                  {w.message && <div className="text-xs text-slate-600">{w.message}</div>}
                  <div className="text-xs text-slate-500">{relative(w.updatedAt)}</div>
                </td>
                <td className="px-3 py-2 text-xs text-slate-600">
                  <ul>
                    {w.objects.map((o) => (
                      <li key={`${o.kind}/${o.namespace}/${o.name}`}>
                        {o.kind} {o.namespace ? `${o.namespace}/` : ""}
                        {o.name}
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

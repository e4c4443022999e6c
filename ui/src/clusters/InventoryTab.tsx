import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { api, query } from "../api/client";
import type { Cluster, Schemas, With } from "../api/types";
import { HealthBadge } from "../components/Badge";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { relative } from "../components/time";
import { ResourcePanel, type ResourceRef } from "./ResourcePanel";
import { queryKeys } from "../api/keys";

export type Inventory = Omit<
  With<Schemas["InventoryView"], "connected" | "reported" | "objects" | "clusterScoped" | "namespaces">,
  "namespaces"
> & { namespaces: With<Schemas["NamespaceCounts"], "name" | "total" | "kinds">[] };

export type Resource = With<
  Schemas["ResourceView"],
  "uid" | "group" | "version" | "kind" | "namespace" | "name" | "status" | "health" | "labels"
>;

type ResourcePage = Omit<Schemas["ResourcePage"], "items"> & { items: Resource[] };

/** The kinds in the order an operator scans them. */
const KINDS = [
  "Deployment",
  "StatefulSet",
  "DaemonSet",
  "ReplicaSet",
  "Pod",
  "Job",
  "CronJob",
  "Service",
  "Ingress",
  "ConfigMap",
  "Secret",
  "PersistentVolumeClaim",
  "Namespace",
  "Node",
];

export function InventoryTab({ cluster }: { cluster: Cluster }) {
  const [namespace, setNamespace] = useState("");
  const [kind, setKind] = useState("");
  const [search, setSearch] = useState("");
  const [label, setLabel] = useState("");
  const [cursors, setCursors] = useState<string[]>([]);
  const [selected, setSelected] = useState<ResourceRef | null>(null);
  const cursor = cursors[cursors.length - 1];

  const inventory = useQuery({
    queryKey: queryKeys.inventory(cluster.id),
    queryFn: () => api<Inventory>(`/clusters/${cluster.id}/inventory`),
    refetchInterval: 10_000,
  });
  const resources = useQuery({
    queryKey: queryKeys.resources(cluster.id, { namespace, kind, search, label }, cursor),
    queryFn: () =>
      api<ResourcePage>(
        `/clusters/${cluster.id}/resources${query({ namespace, kind, q: search.trim(), label: label.trim(), limit: 50, cursor })}`,
      ),
    refetchInterval: 10_000,
  });
  const refresh = useMutation({
    mutationFn: () => api(`/clusters/${cluster.id}/inventory/refresh`, { method: "POST" }),
    onSuccess: () => setTimeout(() => inventory.refetch(), 1500),
  });

  const filter = (apply: () => void) => {
    apply();
    setCursors([]);
  };

  if (inventory.isPending) return <Loading what="the inventory" />;
  if (inventory.isError) return <ErrorState error={inventory.error} />;
  const inv = inventory.data;
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3 text-sm text-slate-600">
        {inv.reported ? (
          <span>
            {inv.objects} objects, as of <time dateTime={inv.asOf}>{relative(inv.asOf ?? "")}</time>
            {!inv.connected && " — the agent is disconnected; this is the last inventory it reported"}
          </span>
        ) : (
          <span>The agent has not reported an inventory yet.</span>
        )}
        <Button variant="secondary" onClick={() => refresh.mutate()} disabled={refresh.isPending || !inv.connected}>
          Refresh
        </Button>
        <FormError error={refresh.error} />
      </div>

      {inv.reported && (
        <div className="overflow-x-auto">
          <table
            aria-label="Namespaces"
            className="min-w-full rounded border border-slate-200 bg-white text-left text-sm"
          >
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">Namespace</th>
                <th className="px-3 py-2">Objects</th>
                <th className="px-3 py-2">Kinds</th>
              </tr>
            </thead>
            <tbody>
              {inv.namespaces.map((n) => (
                <tr key={n.name} className="border-t border-slate-100">
                  <td className="px-3 py-2">
                    <button
                      type="button"
                      className="text-indigo-700 hover:underline"
                      onClick={() => filter(() => setNamespace(n.name))}
                    >
                      {n.name}
                    </button>
                  </td>
                  <td className="px-3 py-2">{n.total}</td>
                  <td className="px-3 py-2 text-slate-600">
                    {Object.entries(n.kinds)
                      .map(([k, c]) => `${c} ${k}`)
                      .join(", ")}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {selected && (
        <ResourcePanel
          clusterId={cluster.id}
          resource={selected}
          onSelect={setSelected}
          onClose={() => setSelected(null)}
        />
      )}

      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => e.preventDefault()}
        aria-label="Filter resources"
      >
        <label className="text-sm">
          <span className="block text-slate-600">Namespace</span>
          <select className={inputClass} value={namespace} onChange={(e) => filter(() => setNamespace(e.target.value))}>
            <option value="">All</option>
            {inv.namespaces.map((n) => (
              <option key={n.name} value={n.name}>
                {n.name}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          <span className="block text-slate-600">Kind</span>
          <select className={inputClass} value={kind} onChange={(e) => filter(() => setKind(e.target.value))}>
            <option value="">All</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          <span className="block text-slate-600">Name contains</span>
          <input className={inputClass} value={search} onChange={(e) => filter(() => setSearch(e.target.value))} />
        </label>
        <label className="text-sm">
          <span className="block text-slate-600">Label</span>
          <input
            className={inputClass}
            placeholder="app=web"
            value={label}
            onChange={(e) => filter(() => setLabel(e.target.value))}
          />
        </label>
      </form>

      {resources.isPending ? (
        <Loading what="resources" />
      ) : resources.isError ? (
        <ErrorState error={resources.error} />
      ) : resources.data.items.length === 0 ? (
        <Empty>No resources match.</Empty>
      ) : (
        <>
          <div className="overflow-x-auto">
            <table
              aria-label="Resources"
              className="min-w-full rounded border border-slate-200 bg-white text-left text-sm"
            >
              <thead className="bg-slate-50 text-xs uppercase text-slate-500">
                <tr>
                  <th className="px-3 py-2">Name</th>
                  <th className="px-3 py-2">Kind</th>
                  <th className="px-3 py-2">Namespace</th>
                  <th className="px-3 py-2">Status</th>
                  <th className="px-3 py-2">Health</th>
                  <th className="px-3 py-2">Age</th>
                  <th className="px-3 py-2">Labels</th>
                </tr>
              </thead>
              <tbody>
                {resources.data.items.map((r) => (
                  <tr key={r.uid} className="border-t border-slate-100">
                    <td className="px-3 py-2 font-medium">
                      <button
                        type="button"
                        className="text-left text-indigo-700 hover:underline disabled:text-slate-900 disabled:no-underline"
                        disabled={!inv.connected}
                        title={inv.connected ? "Inspect it live" : "Inspection needs the agent connected"}
                        onClick={() => setSelected(r)}
                      >
                        {r.name}
                      </button>
                    </td>
                    <td className="px-3 py-2">{r.kind}</td>
                    <td className="px-3 py-2">{r.namespace || "—"}</td>
                    <td className="px-3 py-2">{r.status}</td>
                    <td className="px-3 py-2">
                      <HealthBadge health={r.health} />
                    </td>
                    <td className="px-3 py-2">{r.createdAt ? relative(r.createdAt) : "—"}</td>
                    <td className="px-3 py-2 text-xs text-slate-600">
                      {Object.entries(r.labels)
                        .map(([k, v]) => `${k}=${v}`)
                        .join(" ")}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="flex gap-2">
            <Button
              variant="secondary"
              disabled={cursors.length === 0}
              onClick={() => setCursors(cursors.slice(0, -1))}
            >
              Previous
            </Button>
            <Button
              variant="secondary"
              disabled={!resources.data.nextCursor}
              onClick={() => resources.data.nextCursor && setCursors([...cursors, resources.data.nextCursor])}
            >
              Next
            </Button>
          </div>
        </>
      )}
    </div>
  );
}

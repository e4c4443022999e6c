import { useMemo, useState } from "react";
import { Link } from "react-router-dom";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, Page } from "../api/types";
import { Badge, StatusBadge } from "../components/Badge";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, Loading } from "../components/States";
import { relative } from "../components/time";
import { useSession } from "../auth/session";
import { RegisterClusterDialog } from "./RegisterClusterDialog";
import { AcceptancePanel, AcceptancePolicy } from "./Acceptance";
import { CertificatePolicy } from "./Certificate";
import { queryKeys } from "../api/keys";

const STATUSES = ["Connected", "Lagging", "Disconnected", "Pending", "Expired", "PendingAcceptance", "Rejected"];

/** Matches a cluster against the search box and the filters. */
export function matches(
  c: Cluster,
  f: { q: string; status: string; environment: string; provider: string; label: string },
): boolean {
  const q = f.q.trim().toLowerCase();
  if (q && !`${c.name} ${c.displayName ?? ""} ${c.region ?? ""}`.toLowerCase().includes(q)) return false;
  if (f.status && c.status !== f.status) return false;
  if (f.environment && c.environment !== f.environment) return false;
  if (f.provider && c.provider !== f.provider) return false;
  if (f.label) {
    const [k, v] = f.label.split(/[:=]/, 2);
    // Selectors see the effective labels: the agent's reported ones with the hub's winning.
    const labels = c.effectiveLabels ?? c.labels;
    if (!(k in labels) || (v !== undefined && labels[k] !== v)) return false;
  }
  return true;
}

export function ClustersPage() {
  const { can } = useSession();
  const [registering, setRegistering] = useState(false);
  const [filter, setFilter] = useState({ q: "", status: "", environment: "", provider: "", label: "" });
  const clusters = useQuery({
    queryKey: queryKeys.clusters(),
    queryFn: () => api<Page<Cluster>>("/clusters"),
    refetchInterval: 10_000,
  });
  const items = useMemo(() => clusters.data?.items ?? [], [clusters.data]);
  const environments = useMemo(
    () => [...new Set(items.map((c) => c.environment).filter(Boolean))] as string[],
    [items],
  );
  const providers = useMemo(() => [...new Set(items.map((c) => c.provider).filter(Boolean))] as string[], [items]);
  const shown = items.filter((c) => matches(c, filter));
  const set = (k: keyof typeof filter) => (e: { target: { value: string } }) =>
    setFilter({ ...filter, [k]: e.target.value });

  return (
    <section aria-labelledby="clusters-title">
      <div className="flex items-center justify-between">
        <h1 id="clusters-title" className="text-2xl font-semibold">
          Clusters
        </h1>
        {can("clusters:write") && (
          <Button variant="primary" onClick={() => setRegistering(true)}>
            Register cluster
          </Button>
        )}
      </div>
      {can("org:write") && <AcceptancePolicy />}
      {can("org:write") && <CertificatePolicy />}
      <div className="mt-4 grid grid-cols-2 gap-2 md:grid-cols-5">
        <label className="text-sm">
          Search
          <input className={inputClass} value={filter.q} onChange={set("q")} placeholder="name, region" />
        </label>
        <label className="text-sm">
          Status
          <select className={inputClass} value={filter.status} onChange={set("status")}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s === "PendingAcceptance" ? "Pending acceptance" : s}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          Environment
          <select className={inputClass} value={filter.environment} onChange={set("environment")}>
            <option value="">any</option>
            {environments.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          Provider
          <select className={inputClass} value={filter.provider} onChange={set("provider")}>
            <option value="">any</option>
            {providers.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          Label
          <input className={inputClass} value={filter.label} onChange={set("label")} placeholder="tier:production" />
        </label>
      </div>
      <div className="mt-4 overflow-x-auto rounded border border-slate-200 bg-white">
        {clusters.isPending ? (
          <Loading what="clusters" />
        ) : clusters.isError ? (
          <ErrorState error={clusters.error} />
        ) : items.length === 0 ? (
          <Empty>No clusters yet. Register one to install its agent.</Empty>
        ) : shown.length === 0 ? (
          <Empty>No cluster matches these filters.</Empty>
        ) : (
          <table className="min-w-full text-left text-sm">
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">Name</th>
                <th className="px-3 py-2">Status</th>
                <th className="px-3 py-2">Environment</th>
                <th className="px-3 py-2">Provider</th>
                <th className="px-3 py-2">Agent</th>
                <th className="px-3 py-2">Last seen</th>
                <th className="px-3 py-2">Uptime 24 h</th>
                <th className="px-3 py-2">Capabilities</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((c) => (
                <tr key={c.id} className="border-t border-slate-100">
                  <td className="px-3 py-2">
                    <Link className="font-medium text-indigo-700 hover:underline" to={`/clusters/${c.id}/overview`}>
                      {c.displayName || c.name}
                    </Link>
                    <div className="text-xs text-slate-500">{c.name}</div>
                  </td>
                  <td className="px-3 py-2">
                    <StatusBadge status={c.status} />
                    <AcceptancePanel cluster={c} compact />
                  </td>
                  <td className="px-3 py-2">{c.environment ?? "—"}</td>
                  <td className="px-3 py-2">
                    {c.provider ?? "—"}
                    {c.region ? <span className="text-slate-500"> · {c.region}</span> : null}
                  </td>
                  <td className="px-3 py-2">
                    {c.agentVersion ?? "—"} <VersionBadge cluster={c} />
                  </td>
                  <td className="px-3 py-2">
                    {relative(c.lastSeen)}
                    {c.health?.heartbeatLatencyMillis != null && (
                      <span className="text-xs text-slate-500"> · {c.health.heartbeatLatencyMillis} ms</span>
                    )}
                  </td>
                  <td className="px-3 py-2">{c.health?.uptime24h != null ? `${c.health.uptime24h} %` : "—"}</td>
                  <td className="px-3 py-2 text-xs text-slate-600">{c.capabilities.join(", ") || "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {registering && <RegisterClusterDialog onClose={() => setRegistering(false)} />}
    </section>
  );
}

/** The seed's version-drift badge: behind (an older minor) or unsupported (another major). */
export function VersionBadge({ cluster: c }: { cluster: Cluster }) {
  const status = c.versionStatus ?? (c.versionDrift ? "behind" : null);
  if (status === "behind") return <Badge tone="yellow">behind</Badge>;
  if (status === "unsupported") return <Badge tone="red">unsupported</Badge>;
  return null;
}

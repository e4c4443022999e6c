import { useState, type FormEvent } from "react";
import { Link } from "react-router-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, query } from "../api/client";
import type { Cluster, Page, Schemas, With } from "../api/types";
import { Badge, StatusBadge } from "../components/Badge";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { relative } from "../components/time";
import { useSession } from "../auth/session";
import { queryKeys } from "../api/keys";

/** Where a drifted object comes from in the project's deploy branch. */
export type DriftSource = With<
  Schemas["DriftController.Source"],
  "projectId" | "environment" | "tenant" | "branch" | "path"
>;

export type DriftObject = With<Schemas["ObjectRef"], "group" | "version" | "kind" | "namespace" | "name">;

export type DriftFinding = Omit<
  With<
    Schemas["FindingSummary"],
    | "id"
    | "object"
    | "severity"
    | "state"
    | "open"
    | "differences"
    | "argoApplication"
    | "firstDetectedAt"
    | "lastSeenAt"
    | "durationSeconds"
  >,
  "object" | "severity" | "state"
> & {
  object: DriftObject;
  severity: "functional" | "cosmetic";
  state: "drifted" | "missing";
};

/** An object a check did not compare: its sync status is unknown, never in sync. */
export type DriftNotCompared = Omit<
  With<Schemas["NotCompared"], "object" | "source" | "reason">,
  "object" | "source"
> & {
  object: DriftObject;
  source: DriftSource;
};

export type DriftDifference = With<Schemas["Difference"], "path" | "desired" | "live" | "severity">;

export type DriftFindingDetail = Omit<DriftFinding, "differences"> &
  Omit<
    With<
      Schemas["FindingDetail"],
      "clusterId" | "source" | "differences" | "fieldManager" | "method" | "resolveCommands"
    >,
    keyof DriftFinding | "source" | "differences" | "resolveCommands"
  > & {
    source: DriftSource;
    differences: DriftDifference[];
    resolveCommands: With<Schemas["ResolveCommand"], "id" | "status" | "statusDetail" | "createdAt">[];
  };

export type DriftCheck = Omit<
  With<
    Schemas["Check"],
    "id" | "status" | "trigger" | "objects" | "drifted" | "opened" | "resolved" | "unknown" | "summary" | "notCompared"
  >,
  "status" | "notCompared"
> & {
  status: "pending" | "running" | "completed" | "failed";
  notCompared: DriftNotCompared[];
};

/** The findings list, with the cluster's newest finished check. */
export type DriftPage = Omit<Schemas["DriftController.Page"], "items" | "latestCheck"> &
  Page<DriftFinding> & { latestCheck?: DriftCheck };

/** "3m 20s": how long a finding lasted (or has lasted so far). */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m ${seconds % 60}s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h ${m % 60}m` : `${Math.floor(h / 24)}d ${h % 24}h`;
}

export function DriftTab({ cluster }: { cluster: Cluster }) {
  const [filters, setFilters] = useState({ severity: "", namespace: "", state: "open" });
  const [selected, setSelected] = useState<string | null>(null);
  const list = useQuery({
    queryKey: queryKeys.driftList(cluster.id, filters),
    queryFn: () => api<DriftPage>(`/clusters/${cluster.id}/drift${query(filters)}`),
    refetchInterval: 10_000,
  });
  const set = (k: keyof typeof filters) => (e: { target: { value: string } }) =>
    setFilters({ ...filters, [k]: e.target.value });
  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_28rem]">
      <div>
        <div className="flex flex-wrap items-end gap-2">
          <label className="text-sm">
            Severity
            <select className={inputClass} value={filters.severity} onChange={set("severity")}>
              <option value="">any</option>
              <option>functional</option>
              <option>cosmetic</option>
            </select>
          </label>
          <label className="text-sm">
            Namespace
            <input className={inputClass} value={filters.namespace} onChange={set("namespace")} placeholder="any" />
          </label>
          <label className="text-sm">
            State
            <select className={inputClass} value={filters.state} onChange={set("state")}>
              <option value="open">open</option>
              <option value="resolved">resolved</option>
              <option value="">any</option>
            </select>
          </label>
          <CheckNow cluster={cluster} />
        </div>
        {list.data?.latestCheck && <LatestCheck check={list.data.latestCheck} />}
        <div className="mt-3 overflow-x-auto rounded border border-slate-200 bg-white">
          {list.isPending ? (
            <Loading what="drift findings" />
          ) : list.isError ? (
            <ErrorState error={list.error} />
          ) : list.data.items.length === 0 ? (
            <Empty>No drift findings match.</Empty>
          ) : (
            <table aria-label="Drift findings" className="min-w-full text-left text-sm">
              <thead className="bg-slate-50 text-xs uppercase text-slate-500">
                <tr>
                  <th className="px-3 py-2">Object</th>
                  <th className="px-3 py-2">Severity</th>
                  <th className="px-3 py-2">Differences</th>
                  <th className="px-3 py-2">First detected</th>
                  <th className="px-3 py-2">Duration</th>
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((f) => (
                  <tr key={f.id} className="border-t border-slate-100">
                    <td className="px-3 py-2">
                      <button
                        type="button"
                        className="text-indigo-700 hover:underline"
                        onClick={() => setSelected(f.id)}
                      >
                        {f.object.kind} {f.object.namespace}/{f.object.name}
                      </button>{" "}
                      {f.state === "missing" && <Badge tone="red">missing</Badge>}
                      {!f.open && <Badge tone="green">resolved</Badge>}
                      {f.open && f.notCompared && (
                        <span title={`Not compared by the newest check: ${f.notCompared}`}>
                          <Badge tone="yellow">not compared</Badge>
                        </span>
                      )}
                    </td>
                    <td className="px-3 py-2">
                      <Badge tone={f.severity === "functional" ? "red" : "gray"}>{f.severity}</Badge>
                    </td>
                    <td className="px-3 py-2">{f.differences}</td>
                    <td className="px-3 py-2">{relative(f.firstDetectedAt)}</td>
                    <td className="px-3 py-2">{duration(f.durationSeconds)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
      {selected ? (
        <FindingPanel cluster={cluster} id={selected} />
      ) : (
        <p className="text-sm text-slate-500">Choose a finding to see its field differences.</p>
      )}
    </div>
  );
}

/**
 * What the cluster's newest finished check found, and the objects it did not compare: their sync
 * status is unknown (as Argo CD shows Unknown with the comparison error), neither drifted nor in
 * sync.
 */
function LatestCheck({ check }: { check: DriftCheck }) {
  return (
    <div className="mt-3 space-y-2">
      <p className="text-sm text-slate-600">
        Newest check{check.finishedAt ? ` ${relative(check.finishedAt)}` : ""}: {check.summary}
      </p>
      {check.unknown > 0 && (
        <section
          aria-labelledby="not-compared-title"
          className="rounded border border-dashed border-amber-400 bg-amber-50 p-3"
        >
          <h2 id="not-compared-title" className="flex items-center gap-2 text-sm font-medium text-amber-900">
            <Badge tone="yellow">unknown</Badge> {check.unknown} not compared
          </h2>
          <p className="mt-1 text-xs text-amber-900">
            The check could not compare these objects with the cluster, so whether they drifted is unknown. They are not
            counted as in sync, and an open finding of one stays open.
          </p>
          {check.notCompared.length === 0 ? (
            <p className="mt-1 text-xs text-slate-600">
              The hub no longer keeps which objects; the next check lists its own.
            </p>
          ) : (
            <table aria-label="Objects not compared" className="mt-2 min-w-full text-left text-xs">
              <thead className="uppercase text-amber-900/70">
                <tr>
                  <th className="px-2 py-1">Object</th>
                  <th className="px-2 py-1">Reason</th>
                </tr>
              </thead>
              <tbody>
                {check.notCompared.map((u) => (
                  <tr
                    key={`${u.object.group}/${u.object.kind}/${u.object.namespace}/${u.object.name}`}
                    className="border-t border-amber-200 align-top"
                  >
                    <td className="px-2 py-1">
                      {u.object.kind} {u.object.namespace ? `${u.object.namespace}/` : ""}
                      {u.object.name}
                      <div className="text-slate-500">
                        {u.source.branch}: {u.source.path}
                      </div>
                    </td>
                    <td className="whitespace-pre-wrap break-words px-2 py-1 font-mono">{u.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </div>
  );
}

function CheckNow({ cluster }: { cluster: Cluster }) {
  const client = useQueryClient();
  const [checkId, setCheckId] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: () => api<DriftCheck>(`/clusters/${cluster.id}/drift/checks`, { method: "POST" }),
    onSuccess: (c) => setCheckId(c.id),
  });
  const check = useQuery({
    queryKey: queryKeys.driftCheck(cluster.id, checkId),
    queryFn: async () => {
      const c = await api<DriftCheck>(`/clusters/${cluster.id}/drift/checks/${checkId}`);
      if (c.status === "completed" || c.status === "failed")
        client.invalidateQueries({ queryKey: queryKeys.drift(cluster.id) });
      return c;
    },
    enabled: checkId !== null,
    refetchInterval: (q) =>
      q.state.data && (q.state.data.status === "completed" || q.state.data.status === "failed") ? false : 1_000,
  });
  const c = check.data;
  return (
    <div className="flex items-center gap-2">
      <Button
        type="button"
        onClick={() => start.mutate()}
        disabled={start.isPending || (c !== undefined && (c.status === "pending" || c.status === "running"))}
      >
        Check now
      </Button>
      <FormError error={start.error} />
      {c && (
        <span role="status" className="text-sm text-slate-600">
          {c.status === "completed"
            ? `Checked ${c.objects} objects: ${c.drifted} drifted, ${c.opened} new, ${c.resolved} resolved${c.unknown > 0 ? `, ${c.unknown} not compared` : ""}`
            : c.status === "failed"
              ? `Check failed: ${c.error ?? "unknown error"}`
              : `Check ${c.status}…`}
        </span>
      )}
    </div>
  );
}

function FindingPanel({ cluster, id }: { cluster: Cluster; id: string }) {
  const { can } = useSession();
  const finding = useQuery({
    queryKey: queryKeys.driftFinding(cluster.id, id),
    queryFn: () => api<DriftFindingDetail>(`/clusters/${cluster.id}/drift/${id}`),
    refetchInterval: 5_000,
  });
  if (finding.isPending) return <Loading what="the finding" />;
  if (finding.isError) return <ErrorState error={finding.error} />;
  const f = finding.data;
  return (
    <section aria-labelledby="finding-title" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h2 id="finding-title" className="font-medium">
        {f.object.kind} {f.object.namespace}/{f.object.name}
      </h2>
      {f.open && f.notCompared && (
        <p role="note" className="rounded border border-dashed border-amber-400 bg-amber-50 p-2 text-xs text-amber-900">
          The newest check did not compare this object ({f.notCompared}); the finding stays open as the last comparison
          left it.
        </p>
      )}
      <dl className="grid grid-cols-[8rem_1fr] gap-1 text-sm">
        <dt className="text-slate-500">Severity</dt>
        <dd>{f.severity}</dd>
        <dt className="text-slate-500">Source</dt>
        <dd>
          {f.source.branch}: {f.source.path}
        </dd>
        <dt className="text-slate-500">First detected</dt>
        <dd>{relative(f.firstDetectedAt)}</dd>
        <dt className="text-slate-500">{f.open ? "Lasting" : "Lasted"}</dt>
        <dd>{duration(f.durationSeconds)}</dd>
        {f.resolvedAt && (
          <>
            <dt className="text-slate-500">Resolved</dt>
            <dd>{relative(f.resolvedAt)}</dd>
          </>
        )}
        <dt className="text-slate-500">Managed by</dt>
        <dd>{f.argoApplication ? `Argo CD application ${f.argoApplication}` : `field manager ${f.fieldManager}`}</dd>
      </dl>
      <table aria-label="Field differences" className="min-w-full text-left text-xs">
        <thead className="bg-slate-50 uppercase text-slate-500">
          <tr>
            <th className="px-2 py-1">Path</th>
            <th className="px-2 py-1">Desired</th>
            <th className="px-2 py-1">Live</th>
          </tr>
        </thead>
        <tbody>
          {f.differences.map((d) => (
            <tr key={d.path} className="border-t border-slate-100 align-top">
              <td className="px-2 py-1 font-mono">
                {d.path || "(whole object)"} {d.severity === "cosmetic" && <Badge>cosmetic</Badge>}
              </td>
              <td className="px-2 py-1 font-mono text-green-800">{d.desired || "(absent)"}</td>
              <td className="px-2 py-1 font-mono text-red-800">{d.live || "(absent)"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {f.resolveCommands.length > 0 && (
        <div className="text-sm">
          <h3 className="font-medium">Resolve commands</h3>
          <ul>
            {f.resolveCommands.map((c) => (
              <li key={c.id} className="flex items-center gap-2">
                <Link className="text-indigo-700 underline" to={`/commands/${c.id}`}>
                  command {c.id.slice(0, 8)}
                </Link>
                <StatusBadge status={c.status} />
              </li>
            ))}
          </ul>
        </div>
      )}
      {f.open && can("commands:create") && <Resolve cluster={cluster} finding={f} />}
    </section>
  );
}

function Resolve({ cluster, finding }: { cluster: Cluster; finding: DriftFindingDetail }) {
  const client = useQueryClient();
  const [reason, setReason] = useState("");
  const resolve = useMutation({
    mutationFn: () =>
      api<With<Schemas["DriftController.Accepted"], "id" | "status">>(
        `/clusters/${cluster.id}/drift/${finding.id}/resolve`,
        { body: { reason } },
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.driftFinding(cluster.id, finding.id) }),
  });
  const command = useQuery({
    queryKey: queryKeys.command(resolve.data?.id),
    queryFn: () => api<With<Schemas["CommandDetail"], "id" | "status">>(`/commands/${resolve.data?.id}`),
    enabled: resolve.data !== undefined,
    refetchInterval: 2_000,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    resolve.mutate();
  };
  return (
    <form onSubmit={submit} aria-labelledby="resolve-title" className="space-y-2 border-t border-slate-100 pt-3">
      <h3 id="resolve-title" className="font-medium">
        Resolve
      </h3>
      <p className="text-xs text-slate-500">
        {finding.argoApplication
          ? `Asks Argo CD to sync ${finding.argoApplication}.`
          : "Re-applies the desired state with server-side apply."}{" "}
        Runs under the cluster's approval policy.
      </p>
      <label className="block text-sm">
        Reason
        <input className={inputClass} value={reason} onChange={(e) => setReason(e.target.value)} required />
      </label>
      <FormError error={resolve.error} />
      {resolve.data && (
        <p role="status" className="text-sm">
          Requested{" "}
          <Link className="underline" to={`/commands/${resolve.data.id}`}>
            command {resolve.data.id.slice(0, 8)}
          </Link>
          :{" "}
          {(command.data?.status ?? resolve.data.status) === "pending_approval"
            ? "waiting for approval"
            : (command.data?.status ?? resolve.data.status)}
        </p>
      )}
      <Button variant="primary" type="submit" disabled={resolve.isPending || resolve.data !== undefined}>
        {resolve.isPending ? "Requesting…" : "Resolve"}
      </Button>
    </form>
  );
}

import { useState, type FormEvent } from "react";
import { Link } from "react-router-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, query } from "../api/client";
import type { Cluster, Command, Page, Schemas, With } from "../api/types";
import { Badge, StatusBadge } from "../components/Badge";
import { TimeRange, toIso } from "../components/TimeRange";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { relative } from "../components/time";
import { useSession } from "../auth/session";
import { queryKeys } from "../api/keys";

export const COMMAND_TYPES = ["scale", "restart", "sync", "refresh", "rollback"] as const;
/** What the list filters by: every type, including resolve-drift (requested from the Drift tab). */
const FILTER_TYPES = [...COMMAND_TYPES, "resolve-drift"];
const STATUSES = [
  "pending",
  "pending_approval",
  "executing",
  "completed",
  "failed",
  "rejected",
  "expired",
  "cancelled",
  "frozen",
];

/** The body of POST /clusters/{id}/commands for what the form holds. */
export function commandBody(f: CommandForm) {
  const kind = f.type === "scale" || f.type === "restart" ? "Deployment" : "Application";
  const params: Record<string, unknown> = {};
  if (f.type === "scale") params.replicas = Number(f.replicas);
  if ((f.type === "sync" || f.type === "rollback") && f.revision) params.revision = f.revision;
  return {
    type: f.type,
    target: { namespace: f.namespace, kind, name: f.name },
    params,
    ...(f.reason && { reason: f.reason }),
    ...(f.breakGlass && { breakGlass: { justification: f.justification } }),
  };
}

export interface CommandForm {
  type: (typeof COMMAND_TYPES)[number];
  namespace: string;
  name: string;
  replicas: string;
  revision: string;
  reason: string;
  breakGlass: boolean;
  justification: string;
}

export function CommandsTab({ cluster }: { cluster: Cluster }) {
  const { can } = useSession();
  const [filters, setFilters] = useState({ type: "", status: "", from: "", to: "" });
  const list = useQuery({
    queryKey: queryKeys.commandList(cluster.id, filters),
    queryFn: () =>
      api<Page<Command>>(
        `/clusters/${cluster.id}/commands${query({
          type: filters.type,
          status: filters.status,
          from: toIso(filters.from),
          to: toIso(filters.to),
        })}`,
      ),
    refetchInterval: 5_000,
  });
  const set = (k: keyof typeof filters) => (e: { target: { value: string } }) =>
    setFilters({ ...filters, [k]: e.target.value });
  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_22rem]">
      <div>
        <div className="grid grid-cols-2 gap-2 md:grid-cols-4">
          <label className="text-sm">
            Type
            <select className={inputClass} value={filters.type} onChange={set("type")}>
              <option value="">any</option>
              {FILTER_TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
          <label className="text-sm">
            Status
            <select className={inputClass} value={filters.status} onChange={set("status")}>
              <option value="">any</option>
              {STATUSES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
          <TimeRange from={filters.from} to={filters.to} onChange={(k, v) => setFilters({ ...filters, [k]: v })} />
        </div>
        <div className="mt-3 overflow-x-auto rounded border border-slate-200 bg-white">
          {list.isPending ? (
            <Loading what="commands" />
          ) : list.isError ? (
            <ErrorState error={list.error} />
          ) : list.data.items.length === 0 ? (
            <Empty>No commands match.</Empty>
          ) : (
            <table className="min-w-full text-left text-sm">
              <thead className="bg-slate-50 text-xs uppercase text-slate-500">
                <tr>
                  <th className="px-3 py-2">Command</th>
                  <th className="px-3 py-2">Status</th>
                  <th className="px-3 py-2">Requester</th>
                  <th className="px-3 py-2">When</th>
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((c) => (
                  <tr key={c.id} className="border-t border-slate-100">
                    <td className="px-3 py-2">
                      <Link className="text-indigo-700 hover:underline" to={`/commands/${c.id}`}>
                        {c.type} {c.target.kind} {c.target.namespace}/{c.target.name}
                      </Link>{" "}
                      {c.breakGlass && <Badge tone="red">break-glass</Badge>}
                    </td>
                    <td className="px-3 py-2">
                      <StatusBadge status={c.status} />
                    </td>
                    <td className="px-3 py-2">{c.requester?.name}</td>
                    <td className="px-3 py-2">{relative(c.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
      {can("commands:create") && <NewCommand cluster={cluster} />}
    </div>
  );
}

function NewCommand({ cluster }: { cluster: Cluster }) {
  const client = useQueryClient();
  const [f, setF] = useState<CommandForm>({
    type: "scale",
    namespace: "",
    name: "",
    replicas: "1",
    revision: "",
    reason: "",
    breakGlass: false,
    justification: "",
  });
  const create = useMutation({
    mutationFn: () =>
      api<With<Schemas["CommandController.Accepted"], "id" | "status">>(`/clusters/${cluster.id}/commands`, {
        body: commandBody(f),
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.commands(cluster.id) }),
  });
  const set = (k: keyof CommandForm) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form
      onSubmit={submit}
      aria-labelledby="new-command"
      className="space-y-2 rounded border border-slate-200 bg-white p-4"
    >
      <h2 id="new-command" className="font-medium">
        New command
      </h2>
      <label className="block text-sm">
        Command type
        <select className={inputClass} value={f.type} onChange={set("type")}>
          {COMMAND_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label className="block text-sm">
        Namespace
        <input className={inputClass} value={f.namespace} onChange={set("namespace")} required />
      </label>
      <label className="block text-sm">
        {f.type === "scale" || f.type === "restart" ? "Deployment" : "Argo CD application"}
        <input className={inputClass} value={f.name} onChange={set("name")} required />
      </label>
      {f.type === "scale" && (
        <label className="block text-sm">
          Replicas
          <input
            type="number"
            min={0}
            max={1000}
            className={inputClass}
            value={f.replicas}
            onChange={set("replicas")}
            required
          />
        </label>
      )}
      {(f.type === "sync" || f.type === "rollback") && (
        <label className="block text-sm">
          Revision
          <input
            className={inputClass}
            value={f.revision}
            onChange={set("revision")}
            required={f.type === "rollback"}
          />
        </label>
      )}
      <label className="block text-sm">
        Reason
        <input className={inputClass} value={f.reason} onChange={set("reason")} />
      </label>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={f.breakGlass} onChange={(e) => setF({ ...f, breakGlass: e.target.checked })} />
        Break-glass (runs at once, reviewed afterwards)
      </label>
      {f.breakGlass && (
        <label className="block text-sm">
          Justification
          <textarea
            className={inputClass}
            value={f.justification}
            onChange={set("justification")}
            minLength={20}
            required
          />
        </label>
      )}
      <FormError error={create.error} />
      {create.data && (
        <p role="status" className="text-sm text-green-800">
          Requested:{" "}
          <Link className="underline" to={`/commands/${create.data.id}`}>
            command {create.data.id.slice(0, 8)}
          </Link>{" "}
          ({create.data.status})
        </p>
      )}
      <Button variant="primary" type="submit" disabled={create.isPending}>
        {create.isPending ? "Requesting…" : "Request command"}
      </Button>
    </form>
  );
}

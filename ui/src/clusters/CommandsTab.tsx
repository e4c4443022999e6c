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
import {
  COMMAND_TYPE_NAMES,
  REQUESTABLE_COMMAND_TYPE_NAMES,
  commandType,
  type CommandParamSpec,
  type RequestableCommandTypeName,
} from "../api/commandTypes";

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
  const spec = commandType(f.type);
  const params: Record<string, unknown> = {};
  for (const p of spec.params) {
    const v = f.params[p.name] ?? "";
    if (v !== "") params[p.name] = p.type === "INT" ? Number(v) : v;
  }
  return {
    type: f.type,
    target: { namespace: f.namespace, kind: spec.targetKinds[0], name: f.name },
    params,
    ...(f.reason && { reason: f.reason }),
    ...(f.breakGlass && { breakGlass: { justification: f.justification } }),
  };
}

export interface CommandForm {
  type: RequestableCommandTypeName;
  namespace: string;
  name: string;
  /** What the form holds for each of the type's params, as typed; empty means not given. */
  params: Record<string, string>;
  reason: string;
  breakGlass: boolean;
  justification: string;
}

/** How the form names a target kind. */
function kindLabel(kind: string | undefined) {
  return kind === "Application" ? "Argo CD application" : (kind ?? "Object");
}

/** One input per param the type declares, with its bounds. */
function ParamInput({
  param,
  value,
  onChange,
}: {
  param: CommandParamSpec;
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <label className="block text-sm">
      {param.label}
      {param.type === "INT" ? (
        <input
          type="number"
          min={param.min}
          max={param.max}
          step={1}
          className={inputClass}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          required={param.required}
          title={param.summary}
        />
      ) : (
        <input
          className={inputClass}
          value={value}
          maxLength={param.maxLength}
          onChange={(e) => onChange(e.target.value)}
          required={param.required}
          title={param.summary}
        />
      )}
    </label>
  );
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
              {COMMAND_TYPE_NAMES.map((t) => (
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
    params: { replicas: "1" },
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
  const spec = commandType(f.type);
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
          {REQUESTABLE_COMMAND_TYPE_NAMES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <p className="text-xs text-slate-500">{spec.summary}</p>
      <label className="block text-sm">
        Namespace
        <input className={inputClass} value={f.namespace} onChange={set("namespace")} required />
      </label>
      <label className="block text-sm">
        {kindLabel(spec.targetKinds[0])}
        <input className={inputClass} value={f.name} onChange={set("name")} required />
      </label>
      {spec.params.map((p) => (
        <ParamInput
          key={p.name}
          param={p}
          value={f.params[p.name] ?? ""}
          onChange={(v) => setF({ ...f, params: { ...f.params, [p.name]: v } })}
        />
      ))}
      {spec.exactlyOneOf.length > 0 && (
        <p className="text-xs text-slate-500">
          Give exactly one of{" "}
          {spec.exactlyOneOf.map((n) => spec.params.find((p) => p.name === n)?.label ?? n).join(" or ")}.
        </p>
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

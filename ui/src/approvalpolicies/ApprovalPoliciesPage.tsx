import { useState } from "react";
import { Link, useSearchParams } from "react-router-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { ApprovalPolicy, Page } from "../api/types";
import { queryKeys } from "../api/keys";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { useSession } from "../auth/session";
import { COMMAND_TYPES } from "../api/commandTypes";
import { parseSelector, selectorText } from "../clusters/labelSelector";

/** Every command type a policy can list (the protocol's CommandTypes). */
/** Every command type command_types.proto declares, resolve-drift included. */
const TYPES: string[] = COMMAND_TYPES.map((t) => t.name);

/** The editor's fields, as typed. */
export interface Draft {
  name: string;
  description: string;
  requireApproval: string[];
  autoApprove: string[];
  requiredApprovers: string;
  approverRoles: string;
  approverTeams: string;
  breakGlassAllowed: boolean;
  breakGlassRoles: string;
  clusters: string;
  selector: string;
}

const EMPTY: Draft = {
  name: "",
  description: "",
  requireApproval: [],
  autoApprove: [],
  requiredApprovers: "1",
  approverRoles: "admin, owner",
  approverTeams: "",
  breakGlassAllowed: false,
  breakGlassRoles: "admin, owner",
  clusters: "",
  selector: "",
};

const list = (s: string) =>
  s
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");

export function draftOf(p: ApprovalPolicy): Draft {
  return {
    name: p.name,
    description: p.description ?? "",
    requireApproval: p.requireApproval,
    autoApprove: p.autoApprove,
    requiredApprovers: String(p.requiredApprovers),
    approverRoles: p.approverRoles.join(", "),
    approverTeams: p.approverTeams.join(", "),
    breakGlassAllowed: p.breakGlass.allowed ?? false,
    breakGlassRoles: (p.breakGlass.roles ?? []).join(", "),
    clusters: p.clusters.join(", "),
    selector: selectorText(p.selector, "*"),
  };
}

/** The request body for POST or PUT /approval-policies. */
export function policyBody(d: Draft) {
  return {
    name: d.name.trim(),
    description: d.description,
    requireApproval: d.requireApproval,
    autoApprove: d.autoApprove,
    requiredApprovers: Number(d.requiredApprovers),
    approverRoles: list(d.approverRoles),
    approverTeams: list(d.approverTeams),
    breakGlass: { allowed: d.breakGlassAllowed, roles: list(d.breakGlassRoles) },
    clusters: list(d.clusters),
    selector: parseSelector(d.selector),
  };
}

export function ApprovalPoliciesPage() {
  const { can } = useSession();
  const writable = can("clusters:write");
  const [params, setParams] = useSearchParams();
  const selected = params.get("name");
  const q = useQuery({
    queryKey: queryKeys.approvalPolicies(),
    queryFn: () => api<Page<ApprovalPolicy>>("/approval-policies"),
  });
  const editing = selected === "new" ? null : q.data?.items.find((p) => p.name === selected);
  return (
    <section aria-labelledby="approval-policies-title">
      <div className="flex items-center justify-between">
        <h1 id="approval-policies-title" className="text-2xl font-semibold">
          Approval policies
        </h1>
        {writable && (
          <Button variant="primary" onClick={() => setParams({ name: "new" })}>
            New approval policy
          </Button>
        )}
      </div>
      <p className="mt-1 text-sm text-slate-600">
        Who approves which commands, attached to clusters by name or by label selector. The most specific attachment
        wins: a policy naming the cluster, then the selector with the most requirements.
      </p>
      <div className="mt-4 rounded border border-slate-200 bg-white">
        {q.isPending ? (
          <Loading what="approval policies" />
        ) : q.isError ? (
          <ErrorState error={q.error} />
        ) : q.data.items.length === 0 ? (
          <Empty>No approval policies: every cluster follows the defaults of the approval policy.</Empty>
        ) : (
          <table className="w-full text-left text-sm">
            <thead className="text-xs uppercase text-slate-500">
              <tr>
                <th className="px-4 py-2">Name</th>
                <th className="px-4 py-2">Rules</th>
                <th className="px-4 py-2">Attached to</th>
                <th className="px-4 py-2">Governs now</th>
              </tr>
            </thead>
            <tbody>
              {q.data.items.map((p) => (
                <tr key={p.name} className="border-t border-slate-100 align-top">
                  <td className="px-4 py-2">
                    <Link className="font-medium text-indigo-700 hover:underline" to={`?name=${p.name}`}>
                      {p.name}
                    </Link>
                    {p.description && <div className="text-xs text-slate-500">{p.description}</div>}
                  </td>
                  <td className="px-4 py-2">
                    {p.requireApproval.length > 0
                      ? `${p.requireApproval.join(", ")}: ${p.requiredApprovers} approval${p.requiredApprovers === 1 ? "" : "s"}`
                      : "no approvals"}
                    {p.breakGlass.allowed && <div className="text-xs text-slate-500">break-glass allowed</div>}
                  </td>
                  <td className="px-4 py-2">
                    {p.clusters.length > 0 && <div>clusters: {p.clusters.join(", ")}</div>}
                    {p.selector && <div>selector: {selectorText(p.selector, "*")}</div>}
                    {p.clusters.length === 0 && !p.selector && <span className="text-slate-500">nothing</span>}
                  </td>
                  <td className="px-4 py-2">
                    {p.governs.length === 0
                      ? "—"
                      : p.governs.map((g) => `${g.cluster} (by ${g.attachedBy})`).join(", ")}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {selected && (selected === "new" || editing) && (
        <Editor
          key={selected}
          policy={editing ?? null}
          writable={writable}
          onDone={(name) => setParams(name ? { name } : {})}
        />
      )}
    </section>
  );
}

function Editor({
  policy,
  writable,
  onDone,
}: {
  policy: ApprovalPolicy | null;
  writable: boolean;
  onDone: (name: string | null) => void;
}) {
  const client = useQueryClient();
  const [d, setD] = useState<Draft>(policy ? draftOf(policy) : EMPTY);
  const set = (patch: Partial<Draft>) => setD((old) => ({ ...old, ...patch }));
  const save = useMutation({
    mutationFn: () =>
      policy
        ? api<ApprovalPolicy>(`/approval-policies/${policy.name}`, { method: "PUT", body: policyBody(d) })
        : api<ApprovalPolicy>("/approval-policies", { method: "POST", body: policyBody(d) }),
    onSuccess: (saved) => {
      client.invalidateQueries({ queryKey: queryKeys.approvalPolicies() });
      client.invalidateQueries({ queryKey: queryKeys.clusters() });
      onDone(saved.name ?? null);
    },
  });
  const remove = useMutation({
    mutationFn: () => api(`/approval-policies/${policy?.name}`, { method: "DELETE" }),
    onSuccess: () => {
      client.invalidateQueries({ queryKey: queryKeys.approvalPolicies() });
      onDone(null);
    },
  });
  const toggle = (field: "requireApproval" | "autoApprove", t: string) =>
    set({ [field]: d[field].includes(t) ? d[field].filter((x) => x !== t) : [...d[field], t] });
  return (
    <form
      aria-label={policy ? `Edit ${policy.name}` : "New approval policy"}
      className="mt-6 space-y-3 rounded border border-slate-200 bg-white p-4"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h2 className="font-medium">{policy ? policy.name : "New approval policy"}</h2>
      {!policy && (
        <label className="block text-sm">
          Name
          <input className={inputClass} value={d.name} onChange={(e) => set({ name: e.target.value })} />
        </label>
      )}
      <label className="block text-sm">
        Description
        <input
          className={inputClass}
          value={d.description}
          onChange={(e) => set({ description: e.target.value })}
          readOnly={!writable}
        />
      </label>
      <div className="grid gap-3 md:grid-cols-2">
        {(["requireApproval", "autoApprove"] as const).map((field) => (
          <fieldset key={field} className="text-sm">
            <legend>{field === "requireApproval" ? "Require approval for" : "Auto-approve"}</legend>
            {TYPES.map((t) => (
              <label key={t} className="mr-3 inline-flex items-center gap-1">
                <input
                  type="checkbox"
                  checked={d[field].includes(t)}
                  onChange={() => toggle(field, t)}
                  disabled={!writable}
                />
                {t}
              </label>
            ))}
          </fieldset>
        ))}
        <label className="block text-sm">
          Approvals needed
          <input
            className={inputClass}
            type="number"
            min={1}
            max={10}
            value={d.requiredApprovers}
            onChange={(e) => set({ requiredApprovers: e.target.value })}
            readOnly={!writable}
          />
        </label>
        <label className="block text-sm">
          Approver roles (comma separated)
          <input
            className={inputClass}
            value={d.approverRoles}
            onChange={(e) => set({ approverRoles: e.target.value })}
            readOnly={!writable}
          />
        </label>
        <label className="block text-sm">
          Approver teams (comma separated)
          <input
            className={inputClass}
            value={d.approverTeams}
            onChange={(e) => set({ approverTeams: e.target.value })}
            readOnly={!writable}
          />
        </label>
        <div className="text-sm">
          <label className="inline-flex items-center gap-1">
            <input
              type="checkbox"
              checked={d.breakGlassAllowed}
              onChange={(e) => set({ breakGlassAllowed: e.target.checked })}
              disabled={!writable}
            />
            Allow break-glass
          </label>
          <label className="block">
            Break-glass roles
            <input
              className={inputClass}
              value={d.breakGlassRoles}
              onChange={(e) => set({ breakGlassRoles: e.target.value })}
              readOnly={!writable}
            />
          </label>
        </div>
      </div>
      <h3 className="pt-2 font-medium">Attachments</h3>
      <label className="block text-sm">
        Clusters by name (comma separated; wins over every selector)
        <input
          className={inputClass}
          value={d.clusters}
          onChange={(e) => set({ clusters: e.target.value })}
          readOnly={!writable}
        />
      </label>
      <label className="block text-sm">
        Label selector (e.g. tier=production,region in (eu,us),!canary; * for every cluster; empty for none)
        <input
          className={`${inputClass} font-mono`}
          value={d.selector}
          onChange={(e) => set({ selector: e.target.value })}
          readOnly={!writable}
        />
      </label>
      {policy && policy.governs.length > 0 && (
        <p className="text-sm text-slate-600">
          In force now for: {policy.governs.map((g) => `${g.cluster} (by ${g.attachedBy})`).join(", ")}
        </p>
      )}
      {writable && (
        <div className="flex gap-2">
          <Button variant="primary" type="submit" disabled={save.isPending}>
            {policy ? "Save approval policy" : "Create approval policy"}
          </Button>
          <Button onClick={() => onDone(null)}>Close</Button>
          {policy && (
            <Button variant="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
              Delete
            </Button>
          )}
        </div>
      )}
      <FormError error={save.error} />
      <FormError error={remove.error} />
    </form>
  );
}

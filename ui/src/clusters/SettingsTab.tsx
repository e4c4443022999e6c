import { useState } from "react";
import { Link, useNavigate } from "react-router-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, PolicyInForce, Schemas } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { ErrorState, FormError, Loading } from "../components/States";
import { useSession } from "../auth/session";
import { parseLabels } from "./RegisterClusterDialog";
import { labelText } from "./OverviewTab";
import { queryKeys } from "../api/keys";
import { useOnChange } from "../components/useOnChange";
import { AgentCertificatePanel } from "./Certificate";

type ApprovalSettings = Schemas["View"];

export function SettingsTab({ cluster }: { cluster: Cluster }) {
  const { can } = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const writable = can("clusters:write");
  const [labels, setLabels] = useState(
    Object.entries(cluster.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(", "),
  );
  const [text, setText] = useState("");
  const [confirmDelete, setConfirmDelete] = useState("");
  const policy = useQuery({
    queryKey: queryKeys.approvalPolicy(cluster.id),
    queryFn: () => api<ApprovalSettings>(`/clusters/${cluster.id}/approval-policy`),
  });
  useOnChange(policy.data, (data) => {
    if (data) {
      const { bound, policy: _name, updatedBy: _by, updatedAt: _at, ...rest } = data;
      setText(
        JSON.stringify(bound === false ? { requiredApprovers: 1, approverRoles: ["admin", "owner"] } : rest, null, 2),
      );
    }
  });
  const saveLabels = useMutation({
    mutationFn: () => api(`/clusters/${cluster.id}`, { method: "PATCH", body: { labels: parseLabels(labels) } }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.cluster(cluster.id) }),
  });
  const savePolicy = useMutation({
    mutationFn: () => api(`/clusters/${cluster.id}/approval-policy`, { method: "PUT", body: JSON.parse(text) }),
    onSuccess: () => {
      client.invalidateQueries({ queryKey: queryKeys.approvalPolicy(cluster.id) });
      client.invalidateQueries({ queryKey: queryKeys.cluster(cluster.id) });
      client.invalidateQueries({ queryKey: queryKeys.approvalPolicies() });
    },
  });
  const remove = useMutation({
    mutationFn: () => api(`/clusters/${cluster.id}`, { method: "DELETE" }),
    onSuccess: () => {
      client.invalidateQueries({ queryKey: queryKeys.clusters() });
      navigate("/clusters");
    },
  });
  return (
    <div className="grid gap-6 md:grid-cols-2">
      <InForcePanel inForce={cluster.approvalPolicy as PolicyInForce | undefined} />
      <AgentCertificatePanel cluster={cluster} />
      <div className="space-y-2 rounded border border-slate-200 bg-white p-4">
        <h2 className="font-medium">This cluster's own approval policy</h2>
        {policy.isPending ? (
          <Loading what="the approval settings" />
        ) : policy.isError ? (
          <ErrorState error={policy.error} />
        ) : (
          <>
            <p className="text-sm text-slate-600">
              {policy.data.bound
                ? `Approval policy ${policy.data.policy} names this cluster; saving changes its rules.`
                : `No policy names this cluster; saving creates cluster-${cluster.name}, which wins over every selector.`}
            </p>
            <label className="block text-sm">
              Settings (JSON)
              <textarea
                className={`${inputClass} h-48 font-mono text-xs`}
                value={text}
                onChange={(e) => setText(e.target.value)}
                readOnly={!writable}
              />
            </label>
            {writable && (
              <Button variant="primary" onClick={() => savePolicy.mutate()} disabled={savePolicy.isPending}>
                Save approval settings
              </Button>
            )}
            <FormError error={savePolicy.error} />
          </>
        )}
      </div>
      <div className="space-y-4">
        <div className="space-y-2 rounded border border-slate-200 bg-white p-4">
          <h2 className="font-medium">Labels</h2>
          <label className="block text-sm">
            Labels (key=value, comma separated)
            <input
              className={inputClass}
              value={labels}
              onChange={(e) => setLabels(e.target.value)}
              readOnly={!writable}
            />
          </label>
          {writable && (
            <Button onClick={() => saveLabels.mutate()} disabled={saveLabels.isPending}>
              Save labels
            </Button>
          )}
          <FormError error={saveLabels.error} />
          <p className="text-xs text-slate-500">
            Reported by the agent (its chart's cluster.labels): {labelText(cluster.reportedLabels)}. A label set here
            wins over a reported one with the same key; selectors see both ({labelText(cluster.effectiveLabels)}).
          </p>
        </div>
        <div className="space-y-2 rounded border border-slate-200 bg-white p-4">
          <h2 className="font-medium">Capabilities</h2>
          <p className="text-sm">{cluster.capabilities.join(", ") || "The agent has not reported any yet."}</p>
          <p className="text-xs text-slate-500">
            Set by the agent's chart values (capabilities.*); the hub refuses commands the agent does not report.
          </p>
        </div>
        {writable && (
          <div className="space-y-2 rounded border border-red-200 bg-white p-4">
            <h2 className="font-medium text-red-800">Delete cluster</h2>
            <label className="block text-sm">
              Type the cluster name to confirm
              <input className={inputClass} value={confirmDelete} onChange={(e) => setConfirmDelete(e.target.value)} />
            </label>
            <Button
              variant="danger"
              disabled={confirmDelete !== cluster.name || remove.isPending}
              onClick={() => remove.mutate()}
            >
              Delete cluster
            </Button>
            <FormError error={remove.error} />
          </div>
        )}
      </div>
    </div>
  );
}

/** The approval policy in force for the cluster, and why; a warning when a label change made a tie. */
export function InForcePanel({ inForce }: { inForce: PolicyInForce | undefined }) {
  return (
    <div className="space-y-2 rounded border border-slate-200 bg-white p-4 md:col-span-2">
      <h2 className="font-medium">Approval policy in force</h2>
      {inForce ? (
        <>
          <p className="text-sm">
            <Link
              className="font-medium text-indigo-700 hover:underline"
              to={`/approval-policies?name=${encodeURIComponent(inForce.name)}`}
            >
              {inForce.name}
            </Link>{" "}
            — {inForce.attachedBy === "name" ? "attached by name" : `matched selector ${inForce.selector}`}
          </p>
          {inForce.warning && (
            <p role="alert" className="rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900">
              {inForce.warning}
            </p>
          )}
        </>
      ) : (
        <p className="text-sm text-slate-600">
          No approval policy is attached to this cluster: the defaults of the approval policy apply.
        </p>
      )}
    </div>
  );
}

import { useState } from "react";
import { useNavigate } from "react-router-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, Schemas } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { ErrorState, FormError, Loading } from "../components/States";
import { useSession } from "../auth/session";
import { parseLabels } from "./RegisterClusterDialog";
import { queryKeys } from "../api/keys";
import { useOnChange } from "../components/useOnChange";

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
      const { bound, ...rest } = data;
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
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.approvalPolicy(cluster.id) }),
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
      <div className="space-y-2 rounded border border-slate-200 bg-white p-4">
        <h2 className="font-medium">Approval policy binding</h2>
        {policy.isPending ? (
          <Loading what="the approval settings" />
        ) : policy.isError ? (
          <ErrorState error={policy.error} />
        ) : (
          <>
            <p className="text-sm text-slate-600">
              {policy.data.bound
                ? "Bound to this cluster (OPA's input.settings)."
                : "None bound: the policy's defaults apply."}
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

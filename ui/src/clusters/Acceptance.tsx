import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster } from "../api/types";
import { Button } from "../components/Button";
import { FormError } from "../components/States";
import { relative } from "../components/time";
import { useSession } from "../auth/session";
import { queryKeys } from "../api/keys";

/** The identity a waiting agent reported, for the admin who decides (docs/api.md, hub acceptance). */
export function identityText(c: Cluster): string {
  const a = c.acceptance;
  if (!a) return "";
  const parts = [
    a.kubernetesVersion ? `Kubernetes ${a.kubernetesVersion}` : "Kubernetes version unknown",
    a.nodeCount ? `${a.nodeCount} node${a.nodeCount === 1 ? "" : "s"}` : "node count unknown",
    `agent ${a.agentVersion ?? "—"}`,
  ];
  return parts.join(" · ");
}

/**
 * Hub acceptance: a cluster whose agent waits for an admin shows what its agent reported and, to
 * admins, Accept and Reject. `compact` is the Clusters list's cell; otherwise the cluster page's
 * panel.
 */
export function AcceptancePanel({ cluster: c, compact = false }: { cluster: Cluster; compact?: boolean }) {
  const { can } = useSession();
  const client = useQueryClient();
  const decide = useMutation({
    mutationFn: (decision: "accept" | "reject") => api<Cluster>(`/clusters/${c.id}/${decision}`, { method: "POST" }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.clusters() });
      void client.invalidateQueries({ queryKey: queryKeys.cluster(c.id) });
    },
  });
  const a = c.acceptance;
  if (!a || a.state !== "pending") return null;
  const label = c.displayName || c.name;
  const buttons = can("clusters:write") && (
    <div className="flex flex-wrap gap-2">
      <Button
        variant="primary"
        aria-label={`Accept ${label}`}
        onClick={() => decide.mutate("accept")}
        disabled={decide.isPending}
      >
        Accept
      </Button>
      <Button
        variant="danger"
        aria-label={`Reject ${label}`}
        onClick={() => decide.mutate("reject")}
        disabled={decide.isPending}
      >
        Reject
      </Button>
    </div>
  );
  if (compact) {
    return (
      <div className="mt-1 space-y-1 text-xs text-slate-600">
        <div>{identityText(c)}</div>
        {buttons}
        <FormError error={decide.error} />
      </div>
    );
  }
  return (
    <section
      aria-labelledby="acceptance-title"
      className="mt-4 space-y-3 rounded border border-orange-300 bg-orange-50 p-4 text-sm"
    >
      <h2 id="acceptance-title" className="font-medium">
        Pending acceptance
      </h2>
      <p>
        This cluster registered with a token that requires an admin&apos;s acceptance. Its agent is{" "}
        {a.agentConnected ? "connected" : "not connected"}, but the hub sends it no work until it is accepted. Check
        that it is the cluster you expect:
      </p>
      <dl className="grid grid-cols-[12rem_1fr] gap-x-3 gap-y-1">
        <dt className="text-slate-500">API server URL SHA-256</dt>
        <dd className="break-all font-mono text-xs">{a.apiServerSha256 ?? "not reported"}</dd>
        <dt className="text-slate-500">Nodes</dt>
        <dd>{a.nodeCount ? a.nodeCount : "unknown"}</dd>
        <dt className="text-slate-500">Kubernetes version</dt>
        <dd>{a.kubernetesVersion ?? "unknown"}</dd>
        <dt className="text-slate-500">Agent version</dt>
        <dd>{a.agentVersion ?? "unknown"}</dd>
        <dt className="text-slate-500">Reported</dt>
        <dd>{a.reportedAt ? relative(a.reportedAt) : "—"}</dd>
      </dl>
      {buttons}
      <FormError error={decide.error} />
    </section>
  );
}

/** The organization's default: do newly registered agents wait for an admin? (org:write) */
export function AcceptancePolicy() {
  const client = useQueryClient();
  const policy = useQuery({
    queryKey: queryKeys.acceptancePolicy(),
    queryFn: () => api<{ requireAcceptance?: boolean }>("/clusters/acceptance"),
  });
  const set = useMutation({
    mutationFn: (requireAcceptance: boolean) =>
      api<{ requireAcceptance?: boolean }>("/clusters/acceptance", { method: "PUT", body: { requireAcceptance } }),
    onSuccess: (data) => client.setQueryData(queryKeys.acceptancePolicy(), data),
  });
  if (policy.isPending || policy.isError) return null;
  return (
    <div className="mt-2 text-sm">
      <label className="inline-flex items-center gap-2">
        <input
          type="checkbox"
          checked={policy.data.requireAcceptance === true}
          disabled={set.isPending}
          onChange={(e) => set.mutate(e.target.checked)}
        />
        New agents wait for an admin&apos;s acceptance (a registration token may say otherwise)
      </label>
      <FormError error={set.error} />
    </div>
  );
}

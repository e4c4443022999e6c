import { useMutation } from "@tanstack/react-query";
import { api } from "../api/client";
import { inputClass } from "../components/Button";
import { FormError } from "../components/States";
import type { Schemas, With } from "../api/types";
import { boundByName } from "./clusterSelector";

/** How a cluster of a project environment is delivered to (docs/delivery.md#direct-deploy). */
export const DELIVERY_MODES = [
  { value: "argocd", label: "Argo CD" },
  { value: "flux", label: "Flux" },
  { value: "direct", label: "Direct (the agent applies)" },
] as const;

export type DeliveryMode = (typeof DELIVERY_MODES)[number]["value"];

export type EnvironmentCluster = Omit<With<Schemas["ClusterBinding"], "cluster">, "deliveryMode"> & {
  deliveryMode?: DeliveryMode;
};

export type ProjectEnvironment = Omit<
  With<Schemas["ProjectViews.ProjectEnvironmentView"], "name" | "namespacePattern" | "clusters">,
  "clusters"
> & {
  clusters: EnvironmentCluster[];
};

/**
 * The body of PUT /projects/{id}/environments/{env} that changes one cluster's delivery mode and
 * keeps everything else: the namespace pattern, createNamespace, the other named clusters, every
 * cluster's overrides, the cluster selector and the mode of the clusters it binds (the PUT
 * replaces the environment, so what it leaves out is reset). Clusters only the selector binds are
 * not sent: the selector binds them again.
 */
export function withDeliveryMode(env: ProjectEnvironment, cluster: string, mode: DeliveryMode) {
  return {
    namespacePattern: env.namespacePattern,
    createNamespace: env.createNamespace ?? false,
    clusters: env.clusters.filter(boundByName).map((c) => ({
      cluster: c.cluster,
      overrides: c.overrides ?? {},
      deliveryMode: c.cluster === cluster ? mode : (c.deliveryMode ?? "argocd"),
    })),
    ...(env.clusterSelector && {
      clusterSelector: env.clusterSelector,
      deliveryMode: env.selectorDeliveryMode ?? "argocd",
    }),
  };
}

/** Shows and, for writers, changes one cluster's delivery mode; each change is one commit of config/. */
export function DeliveryModeSelect({
  base,
  env,
  cluster,
  writable,
  onDone,
}: {
  base: string;
  env: ProjectEnvironment;
  cluster: EnvironmentCluster;
  writable: boolean;
  onDone: () => void;
}) {
  const mode = cluster.deliveryMode ?? "argocd";
  const save = useMutation({
    mutationFn: (next: DeliveryMode) =>
      api(`${base}/environments/${env.name}`, { method: "PUT", body: withDeliveryMode(env, cluster.cluster, next) }),
    onSuccess: onDone,
  });
  const label = `Delivery mode of ${cluster.cluster} in ${env.name}`;
  // A cluster only the selector binds has the environment's mode; naming it gives it its own.
  if (!writable || !boundByName(cluster)) {
    return <span aria-label={label}>{DELIVERY_MODES.find((m) => m.value === mode)?.label ?? mode}</span>;
  }
  return (
    <span className="inline-flex items-center gap-2">
      <select
        aria-label={label}
        className={`${inputClass} w-auto`}
        value={save.isPending ? save.variables : mode}
        disabled={save.isPending}
        onChange={(e) => save.mutate(e.target.value as DeliveryMode)}
      >
        {DELIVERY_MODES.map((m) => (
          <option key={m.value} value={m.value}>
            {m.label}
          </option>
        ))}
      </select>
      {save.isPending && <span className="text-xs text-slate-500">saving…</span>}
      <FormError error={save.error} />
    </span>
  );
}

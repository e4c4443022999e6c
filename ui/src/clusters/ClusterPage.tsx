import { useParams } from "react-router-dom";
import { TabNav } from "../components/TabNav";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster } from "../api/types";
import { StatusBadge } from "../components/Badge";
import { ErrorState, Loading } from "../components/States";
import { OverviewTab } from "./OverviewTab";
import { CommandsTab } from "./CommandsTab";
import { BindingsTab } from "./BindingsTab";
import { InventoryTab } from "./InventoryTab";
import { ArgoTab } from "./ArgoTab";
import { SettingsTab } from "./SettingsTab";
import { DirectDeployTab } from "./DirectDeployTab";
import { DriftTab } from "./DriftTab";
import { ClusterCredentialsTab } from "../credentials/ClusterCredentialsTab";
import { LogsTab } from "./logs/LogsTab";
import { queryKeys } from "../api/keys";
import { AcceptancePanel } from "./Acceptance";

// Only tabs whose API exists are shown (logs arrive with the rest
// of the agent's runtime visibility).
const TABS = [
  { id: "overview", label: "Overview" },
  { id: "inventory", label: "Inventory" },
  { id: "argocd", label: "Argo CD" },
  { id: "commands", label: "Commands" },
  { id: "bindings", label: "Bindings" },
  { id: "settings", label: "Settings" },
  { id: "direct-deploy", label: "Direct deploy" },
  { id: "drift", label: "Drift" },
  { id: "credentials", label: "Credentials" },
  { id: "logs", label: "Log Streaming" },
];

export function ClusterPage() {
  const { id = "", tab = "overview" } = useParams();
  const cluster = useQuery({
    queryKey: queryKeys.cluster(id),
    queryFn: () => api<Cluster>(`/clusters/${id}`),
    refetchInterval: 10_000,
  });
  if (cluster.isPending) return <Loading what="the cluster" />;
  if (cluster.isError) return <ErrorState error={cluster.error} />;
  const c = cluster.data;
  return (
    <section aria-labelledby="cluster-title">
      <div className="flex flex-wrap items-center gap-3">
        <h1 id="cluster-title" className="text-2xl font-semibold">
          {c.displayName || c.name}
        </h1>
        <StatusBadge status={c.status} />
      </div>
      <AcceptancePanel cluster={c} />
      <TabNav label="Cluster tabs" base={`/clusters/${id}`} tabs={TABS} />
      <div className="mt-4">
        {tab === "overview" && <OverviewTab cluster={c} />}
        {tab === "inventory" && <InventoryTab cluster={c} />}
        {tab === "argocd" && <ArgoTab cluster={c} />}
        {tab === "commands" && <CommandsTab cluster={c} />}
        {tab === "bindings" && <BindingsTab cluster={c} />}
        {tab === "settings" && <SettingsTab cluster={c} />}
        {tab === "direct-deploy" && <DirectDeployTab cluster={c} />}
        {tab === "drift" && <DriftTab cluster={c} />}
        {tab === "credentials" && <ClusterCredentialsTab cluster={c} />}
        {tab === "logs" && <LogsTab cluster={c} />}
      </div>
    </section>
  );
}

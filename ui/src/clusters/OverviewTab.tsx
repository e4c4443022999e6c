import { useState, type ReactNode } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, Registration, Schemas, With } from "../api/types";
import { VersionBadge } from "./ClustersPage";
import { Button } from "../components/Button";
import { FormError } from "../components/States";
import { relative, stamp } from "../components/time";
import { useSession } from "../auth/session";
import { TokenShownOnce } from "./TokenShownOnce";

/** `k=v, …`, or a dash for none. */
export function labelText(labels: Record<string, string> | undefined): string {
  return (
    Object.entries(labels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(", ") || "—"
  );
}

export function OverviewTab({ cluster: c }: { cluster: Cluster }) {
  const { can } = useSession();
  const joinToken = useMutation({
    mutationFn: () => api<Registration>(`/clusters/${c.id}/join-token`, { method: "POST" }),
  });
  const rotate = useMutation({
    mutationFn: () =>
      api<With<Schemas["Rotation"], "rotationId">>(`/clusters/${c.id}/rotate-token`, { method: "POST" }),
  });
  const [confirmRotate, setConfirmRotate] = useState(false);
  const rows: [string, ReactNode][] = [
    ["Name", c.name],
    ["Provider", c.provider ?? "—"],
    ["Region", c.region ?? "—"],
    ["Environment", c.environment ?? "—"],
    ["Labels (set in the hub)", labelText(c.labels)],
    ["Labels reported by the agent", labelText(c.reportedLabels)],
    ["Effective labels (selectors and policies)", labelText(c.effectiveLabels ?? c.labels)],
    [
      "Agent version",
      <>
        {c.agentVersion ?? "—"} <VersionBadge cluster={c} />
      </>,
    ],
    [
      "Uptime",
      c.health?.uptime24h != null
        ? `${c.health.uptime24h} % (24 h) · ${c.health.uptime7d ?? "—"} % (7 d) · ${c.health.uptime30d ?? "—"} % (30 d)`
        : "—",
    ],
    ["Heartbeat latency", c.health?.heartbeatLatencyMillis != null ? `${c.health.heartbeatLatencyMillis} ms` : "—"],
    [
      "Agent",
      c.health?.agent
        ? `heap ${mib(c.health.agent.heapUsedBytes)} of ${mib(c.health.agent.heapMaxBytes)} MiB · ${c.health.agent.inventoryObjects} objects${
            c.health.agent.inventorySynced ? "" : " (informers still listing)"
          }${c.health.agent.unavailableKinds.length ? ` · cannot list ${c.health.agent.unavailableKinds.join(", ")}` : ""}`
        : "—",
    ],
    ["Last heartbeat", `${relative(c.lastSeen)} (${stamp(c.lastSeen)})`],
    ["Heartbeat interval", c.heartbeatIntervalSeconds ? `${c.heartbeatIntervalSeconds} s` : "—"],
    ["Connected since", stamp(c.connectedAt)],
    ["Registered", stamp(c.registeredAt)],
    ["Capabilities", c.capabilities.join(", ") || "—"],
  ];
  return (
    <div className="grid gap-6 md:grid-cols-2">
      <dl className="grid grid-cols-[10rem_1fr] gap-x-3 gap-y-2 rounded border border-slate-200 bg-white p-4 text-sm">
        {rows.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="text-slate-500">{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {can("clusters:write") && (
        <div className="space-y-4 rounded border border-slate-200 bg-white p-4">
          <h2 className="font-medium">Agent identity</h2>
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => joinToken.mutate()} disabled={joinToken.isPending}>
              New registration token
            </Button>
            {confirmRotate ? (
              <Button variant="danger" onClick={() => rotate.mutate()} disabled={rotate.isPending}>
                Confirm rotation
              </Button>
            ) : (
              <Button onClick={() => setConfirmRotate(true)} disabled={c.status !== "Connected"}>
                Rotate agent token
              </Button>
            )}
          </div>
          <FormError error={joinToken.error ?? rotate.error} />
          {rotate.data && (
            <p role="status" className="text-sm text-green-800">
              Rotation {rotate.data.rotationId} started; the agent acknowledges it on its stream.
            </p>
          )}
          {joinToken.data && <TokenShownOnce registration={joinToken.data} />}
        </div>
      )}
    </div>
  );
}

function mib(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(0);
}

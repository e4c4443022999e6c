import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, Schemas } from "../api/types";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { ErrorState, FormError, Loading } from "../components/States";
import { relative, stamp } from "../components/time";
import { useSession } from "../auth/session";
import { queryKeys } from "../api/keys";

type ClusterCertificates = Schemas["ClusterCertificates"];
type AgentCa = Schemas["CaView"];

const TONE: Record<string, "green" | "gray" | "red"> = { valid: "green", expired: "gray", revoked: "red" };

/**
 * The agent's client certificate (mutual TLS, docs/security.md#agent-certificates): the current
 * one's serial, expiry and status, the latest ones, and, to clusters:write, Revoke, which ends the
 * agent's stream at once.
 */
export function AgentCertificatePanel({ cluster }: { cluster: Cluster }) {
  const { can } = useSession();
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const certs = useQuery({
    queryKey: queryKeys.clusterCertificate(cluster.id),
    queryFn: () => api<ClusterCertificates>(`/clusters/${cluster.id}/certificate`),
  });
  const revoke = useMutation({
    mutationFn: () => api<{ revoked: string[] }>(`/clusters/${cluster.id}/certificate/revoke`, { method: "POST" }),
    onSuccess: () => {
      setConfirming(false);
      void client.invalidateQueries({ queryKey: queryKeys.clusterCertificate(cluster.id) });
      void client.invalidateQueries({ queryKey: queryKeys.cluster(cluster.id) });
    },
  });
  const label = cluster.displayName || cluster.name;
  return (
    <section aria-labelledby="certificate-title" className="space-y-2 rounded border border-slate-200 bg-white p-4">
      <h2 id="certificate-title" className="font-medium">
        Agent certificate
      </h2>
      {certs.isPending ? (
        <Loading what="the agent's certificates" />
      ) : certs.isError ? (
        <ErrorState error={certs.error} />
      ) : (
        <>
          {certs.data.current ? (
            <dl className="grid grid-cols-[8rem_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className="text-slate-500">Serial</dt>
              <dd className="break-all font-mono text-xs">{certs.data.current.serial}</dd>
              <dt className="text-slate-500">Expires</dt>
              <dd title={stamp(certs.data.current.notAfter)}>{relative(certs.data.current.notAfter)}</dd>
              <dt className="text-slate-500">Status</dt>
              <dd>
                <Badge tone="green">valid</Badge>
              </dd>
            </dl>
          ) : (
            <p className="text-sm text-slate-600">
              No valid client certificate: the agent connects with its token alone
              {certs.data.required ? ", which this organization refuses" : ""}.
            </p>
          )}
          {(certs.data.certificates ?? []).length > 0 && (
            <table className="w-full text-left text-xs" aria-label="Certificates">
              <thead className="text-slate-500">
                <tr>
                  <th className="py-1">Serial</th>
                  <th>Status</th>
                  <th>Not after</th>
                  <th>Revoked by</th>
                </tr>
              </thead>
              <tbody>
                {(certs.data.certificates ?? []).map((c) => (
                  <tr key={c.serial} className="border-t border-slate-100">
                    <td className="py-1 font-mono">{(c.serial ?? "").slice(0, 12)}…</td>
                    <td>
                      <Badge tone={TONE[c.status ?? ""] ?? "gray"}>{c.status ?? ""}</Badge>
                    </td>
                    <td>{stamp(c.notAfter)}</td>
                    <td>{c.revokedBy ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {can("clusters:write") && certs.data.current && (
            <div className="flex flex-wrap items-center gap-2">
              {confirming ? (
                <>
                  <span className="text-sm">
                    Revoke and end the agent&apos;s stream now? It needs a new join token.
                  </span>
                  <Button
                    variant="danger"
                    aria-label={`Confirm revoking ${label}'s certificate`}
                    onClick={() => revoke.mutate()}
                    disabled={revoke.isPending}
                  >
                    Revoke
                  </Button>
                  <Button onClick={() => setConfirming(false)}>Cancel</Button>
                </>
              ) : (
                <Button
                  variant="danger"
                  aria-label={`Revoke ${label}'s certificate`}
                  onClick={() => setConfirming(true)}
                >
                  Revoke certificate
                </Button>
              )}
            </div>
          )}
          <FormError error={revoke.error} />
        </>
      )}
    </section>
  );
}

/** The organization's policy: must agents present a client certificate? (org:write) */
export function CertificatePolicy() {
  const client = useQueryClient();
  const ca = useQuery({ queryKey: queryKeys.agentCa(), queryFn: () => api<AgentCa>("/agent-ca") });
  const set = useMutation({
    mutationFn: (requireCertificate: boolean) =>
      api<AgentCa>("/agent-ca", { method: "PUT", body: { requireCertificate } }),
    onSuccess: (data) => client.setQueryData(queryKeys.agentCa(), data),
  });
  if (ca.isPending || ca.isError) return null;
  return (
    <div className="mt-1 text-sm">
      <label className="inline-flex items-center gap-2">
        <input
          type="checkbox"
          checked={ca.data.requireCertificate === true}
          disabled={set.isPending}
          onChange={(e) => set.mutate(e.target.checked)}
        />
        Agents must present a client certificate (mutual TLS) with their token
      </label>
      <span className="ml-2 text-xs text-slate-500" title={ca.data.fingerprintSha256}>
        CA SHA-256 {(ca.data.fingerprintSha256 ?? "").slice(0, 23)}…
      </span>
      <FormError error={set.error} />
    </div>
  );
}

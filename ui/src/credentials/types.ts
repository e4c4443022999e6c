/** A credential's metadata: the hub never returns its values. */
export interface Credential {
  id: string;
  name: string;
  type: "dockerconfigjson" | "tls" | "opaque";
  description: string;
  version: number;
  keys: string[];
  fingerprint: string | null;
  createdAt: string;
  updatedAt: string;
  targets: CredentialTarget[];
}

export interface CredentialTarget {
  clusterId: string;
  clusterName: string;
  namespace: string;
  status: string;
  lastSyncedAt: string | null;
  error: string | null;
  syncedVersion: number | null;
}

/** One row of a cluster's Credentials tab. */
export interface ClusterCredential {
  credentialId: string;
  name: string;
  type: string;
  namespace: string;
  status: "synced" | "pending" | "failed";
  lastSyncedAt: string | null;
  error: string | null;
  version: number;
  syncedVersion: number | null;
}

/** What the type-specific form produces: the Secret's keys and values. */
export function credentialData(
  type: Credential["type"],
  f: { dockerconfigjson: string; crt: string; key: string; pairs: { key: string; value: string }[] },
): Record<string, string> {
  if (type === "dockerconfigjson") return { ".dockerconfigjson": f.dockerconfigjson };
  if (type === "tls") return { "tls.crt": f.crt, "tls.key": f.key };
  const out: Record<string, string> = {};
  for (const p of f.pairs) if (p.key.trim()) out[p.key.trim()] = p.value;
  return out;
}

/** "cluster=ns1,ns2" lines as the assignments body, cluster names resolved to ids. */
export function parseTargets(text: string, clusters: { id: string; name: string }[]): { clusterId: string; namespaces: string[] }[] {
  const out: { clusterId: string; namespaces: string[] }[] = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t) continue;
    const eq = t.indexOf("=");
    if (eq <= 0) throw new Error(`"${t}" is not cluster=namespace[,namespace…]`);
    const name = t.slice(0, eq).trim();
    const cluster = clusters.find((c) => c.name === name || c.id === name);
    if (!cluster) throw new Error(`no cluster named ${name}`);
    const namespaces = t
      .slice(eq + 1)
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    out.push({ clusterId: cluster.id, namespaces });
  }
  return out;
}

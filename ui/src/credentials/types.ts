import type { Schemas, With } from "../api/types";

/** The three kinds of credential the hub stores (docs/api.md#credentials). */
export type CredentialType = "dockerconfigjson" | "tls" | "opaque";

export type CredentialTarget = With<
  Schemas["CredentialController.TargetView"],
  "clusterId" | "clusterName" | "namespace" | "status"
>;

/** A credential's metadata: the hub never returns its values. */
export type Credential = Omit<
  With<
    Schemas["CredentialView"],
    "id" | "name" | "type" | "description" | "version" | "keys" | "createdAt" | "updatedAt" | "targets"
  >,
  "type" | "targets"
> & { type: CredentialType; targets: CredentialTarget[] };

/** One row of a cluster's Credentials tab; `status` is synced, pending or failed. */
export type ClusterCredential = With<
  Schemas["ClusterCredentialView"],
  "credentialId" | "name" | "type" | "namespace" | "status" | "version"
>;

/** What the type-specific form produces: the Secret's keys and values. */
export function credentialData(
  type: CredentialType,
  f: { dockerconfigjson: string; crt: string; key: string; pairs: { key: string; value: string }[] },
): Record<string, string> {
  if (type === "dockerconfigjson") return { ".dockerconfigjson": f.dockerconfigjson };
  if (type === "tls") return { "tls.crt": f.crt, "tls.key": f.key };
  const out: Record<string, string> = {};
  for (const p of f.pairs) if (p.key.trim()) out[p.key.trim()] = p.value;
  return out;
}

/** "cluster=ns1,ns2" lines as the assignments body, cluster names resolved to ids. */
export function parseTargets(
  text: string,
  clusters: { id: string; name: string }[],
): { clusterId: string; namespaces: string[] }[] {
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

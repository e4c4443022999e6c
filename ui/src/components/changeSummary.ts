import type { DeploymentChanges } from "../api/types";

/** e.g. "3 added, 1 changed, 0 removed; RBAC: 1; cluster-scoped: 1; images: 2". */
export function changeSummary(c: DeploymentChanges): string {
  const parts = [
    `${c.added} added, ${c.changed} changed, ${c.removed} removed`,
    `RBAC: ${c.rbac}`,
    `cluster-scoped: ${c.clusterScoped}`,
    `images: ${c.images}`,
  ];
  if (c.unreadable > 0) parts.push(`unreadable files: ${c.unreadable}`);
  return parts.join("; ");
}

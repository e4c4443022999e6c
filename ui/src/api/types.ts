// The shapes the hub answers with (docs/api.md). Only the fields the UI reads are typed.

export interface Page<T> {
  items: T[];
  nextCursor?: string | null;
}

export interface Me {
  id: string;
  type: "member" | "service_account";
  name: string;
  role: string | null;
  permissions: string[];
  org?: { id: string; slug: string; name: string; operator: boolean } | null;
}

export type ClusterStatus = "Pending" | "Expired" | "Connected" | "Lagging" | "Disconnected";

export interface Cluster {
  id: string;
  name: string;
  displayName?: string | null;
  provider?: string | null;
  region?: string | null;
  environment?: string | null;
  labels: Record<string, string>;
  status: ClusterStatus;
  lastSeen?: string | null;
  agentVersion?: string | null;
  versionDrift?: boolean;
  versionStatus?: "current" | "behind" | "unsupported" | null;
  capabilities: string[];
  heartbeatIntervalSeconds?: number;
  registeredAt?: string | null;
  connectedAt?: string | null;
  createdAt: string;
  health?: ClusterHealth | null;
}

export interface ClusterHealth {
  uptime24h?: number | null;
  uptime7d?: number | null;
  uptime30d?: number | null;
  heartbeatLatencyMillis?: number | null;
  agent?: {
    heapUsedBytes: number;
    heapMaxBytes: number;
    inventoryObjects: number;
    inventorySynced: boolean;
    unavailableKinds: string[];
  } | null;
}

export interface Registration {
  cluster: Cluster;
  registrationToken: string;
  expiresAt: string;
  installCommand: string;
}

export interface Decision {
  policy: string;
  version: number;
  sha256?: string | null;
  outcome: string;
  reasons: string[];
}

/**
 * What a deployment changes on its deploy branches, counted when its decision was asked for
 * (docs/api.md, `changes` of a deployment).
 */
export interface DeploymentChanges {
  added: number;
  changed: number;
  removed: number;
  clusterScoped: number;
  rbac: number;
  sensitive: number;
  images: number;
  unreadable: number;
  truncated: boolean;
}

export interface TimelineEvent {
  seq: number;
  at: string;
  status: string;
  actor: string;
  detail: string;
}

export interface Vote {
  memberId: string;
  name: string;
  approve: boolean;
  comment?: string | null;
  counted: boolean;
  why?: string | null;
  at: string;
}

export interface ApprovalView {
  id: string;
  kind: string;
  status: string;
  requiredApprovers: number;
  approverRoles: string[];
  approverTeams: string[];
  createdAt: string;
  expiresAt: string;
  closedAt?: string | null;
  votes: Vote[];
}

export interface Command {
  id: string;
  clusterId: string;
  type: string;
  target: { namespace: string; kind: string; name: string };
  params: Record<string, string>;
  reason?: string | null;
  requester: { id: string; type: string; name: string };
  breakGlass: boolean;
  breakGlassJustification?: string | null;
  status: string;
  statusDetail?: string | null;
  decision?: Decision | null;
  approvals?: ApprovalView[];
  output?: string | null;
  error?: string | null;
  timeline?: TimelineEvent[];
  createdAt: string;
  finishedAt?: string | null;
}

export interface ApprovalSubject {
  type: "command" | "deployment";
  commandType?: string;
  clusterId?: string;
  target?: string;
  reason?: string | null;
  requester?: string;
  breakGlass: boolean;
  justification?: string | null;
  projectId?: string;
  project?: string;
  release?: number;
  releaseKind?: string;
  rollbackOf?: number | null;
  action?: string;
  environments?: string[];
  /** What the deployment changes, once the policy counted it. */
  changes?: DeploymentChanges | null;
}

export interface ApprovalItem {
  id: string;
  kind: string;
  status: string;
  summary: string;
  requiredApprovers: number;
  approvals: number;
  approverRoles: string[];
  approverTeams: string[];
  subject: ApprovalSubject;
  createdAt: string;
  expiresAt: string;
}

export interface PolicySummary {
  name: string;
  version: number;
  createdBy: string;
  createdAt: string;
}

export interface PolicyVersion {
  version: number;
  createdBy: string;
  createdAt: string;
  active: boolean;
}

export interface Policy extends PolicySummary {
  rego: string;
  versions?: PolicyVersion[];
}

export interface AuditEntry {
  seq: number;
  at: string;
  actor: { type: string; id: string; name: string };
  action: string;
  target: { type: string; id: string };
  details: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

export interface AuditVerify {
  valid: boolean;
  entriesChecked: number;
  firstBrokenSeq?: number;
  reason?: string;
}

export interface Project {
  id: string;
  name: string;
  description?: string | null;
  configRevision: number;
  generatedRevision?: number | null;
  repository: { cloneUrl: string; mainBranch: string };
  createdAt: string;
}

export interface Release {
  id: string;
  number: number;
  kind: string;
  description?: string | null;
  configRevision: number;
  requester: { id: string; name: string };
  sourceCommit?: string | null;
  rollbackOf?: number | null;
  createdAt: string;
  environments?: { environment: string; status: string; deploymentId: string; commit?: string | null; at?: string }[];
  deployments?: {
    id: string;
    action: string;
    environments: string[];
    status: string;
    detail?: string | null;
    breakGlass?: boolean;
    createdAt: string;
    finishedAt?: string | null;
  }[];
}

/** A project's fence (docs/delivery.md#namespaces-kind-scopes-and-the-fence). */
export interface ProjectFence {
  allowedNamespaces: string[];
  clusterScopedKinds: string[];
  deniedKinds: string[];
  updatedBy?: string | null;
  updatedAt?: string | null;
  /** True while no admin has set one: the lists are the hub's default fence. */
  default: boolean;
}

/** What one Flux or Argo CD cluster ran of a deployment, when the hub last looked. */
export interface ClusterRun {
  environment: string;
  cluster: string;
  mode: string;
  verified: boolean;
  deliverer?: string | null;
  revision?: string | null;
  health?: string | null;
  reason?: string | null;
  observedAt?: string | null;
  verifiedAt?: string | null;
}

/** An organization environment; `verifyTimeoutSeconds` is null when its deployments are not verified. */
export interface OrgEnvironment {
  name: string;
  position: number;
  description?: string | null;
  createdAt: string;
  verifyTimeoutSeconds?: number | null;
}

export interface FreezeWindow {
  id: string;
  environment?: string | null;
  project?: string | null;
  startsAt: string;
  endsAt: string;
  reason?: string | null;
  active: boolean;
  createdBy: string;
  createdAt: string;
}

export interface Member {
  id: string;
  email: string;
  name: string;
  role: string;
  teams?: string[];
}

export interface ServiceAccount {
  id: string;
  name: string;
  description?: string | null;
  scopes: string[];
  createdBy?: string | null;
  ownerId?: string | null;
  disabled?: boolean;
  disabledAt?: string | null;
  /** The service account that created this one (its approvals exclude everyone up that chain). */
  createdByServiceAccount?: string | null;
}

/** An API token's metadata, as the token lists show it. */
export interface TokenView {
  id: string;
  name: string;
  scopes: string[];
  status: "active" | "expired" | "revoked";
  createdAt: string;
  createdBy?: string | null;
  expiresAt?: string | null;
  lastUsedAt?: string | null;
  revokedAt?: string | null;
  revokedBy?: string | null;
}

export interface Org {
  id: string;
  slug: string;
  name: string;
  plan: string;
  operator: boolean;
  members: number;
  clusters: number;
  createdAt: string;
}

export interface CreatedOrg {
  org: Org;
  ownerId: string;
  ownerEmail: string;
  ownerToken: string;
}

export interface NotificationSettings {
  source: "organization" | "configuration" | "none";
  webhookUrl: string | null;
  secretSet: boolean;
  events: string[];
  knownEvents: string[];
  updatedAt?: string | null;
  updatedBy?: string | null;
}

export interface CreatedToken {
  id: string;
  name: string;
  scopes?: string[];
  expiresAt?: string | null;
  token: string;
}

// Every React Query key the UI uses, in one place, so that a query and the invalidations that
// should refresh it cannot drift apart. Keys are hierarchical: invalidating a shorter key
// (queryKeys.drift(clusterId)) refreshes every longer one under it (each filter's page).

/** A list's filters, as the query string sends them. */
type Filters = Readonly<Record<string, string>>;

export const queryKeys = {
  // Session and sign-in
  me: (token: string | null) => ["me", token] as const,
  authConfig: () => ["auth-config"] as const,

  // Organization
  approvals: () => ["approvals"] as const,
  audit: (filters: Filters, cursor: string | undefined) => ["audit", filters, cursor] as const,
  environments: () => ["environments"] as const,
  tenants: () => ["tenants"] as const,
  freezeWindows: () => ["freeze-windows"] as const,
  features: () => ["features"] as const,
  notifications: () => ["notifications"] as const,
  orgs: () => ["orgs"] as const,
  members: () => ["members"] as const,
  teams: () => ["teams"] as const,
  team: (id: string) => ["teams", id] as const,
  serviceAccounts: () => ["service-accounts"] as const,
  /** The tokens of a member or a service account: `owner` is its path, /members/{id} or /service-accounts/{id}. */
  tokens: (owner: string) => ["tokens", owner] as const,
  credentials: () => ["credentials"] as const,
  policies: () => ["policies"] as const,
  approvalPolicies: () => ["approval-policies"] as const,
  policy: (name: string) => ["policy", name] as const,
  policyVersion: (name: string, version: number) => ["policy", name, version] as const,

  // Clusters
  clusters: () => ["clusters"] as const,
  acceptancePolicy: () => ["acceptance-policy"] as const,
  agentCa: () => ["agent-ca"] as const,
  clusterCertificate: (clusterId: string) => ["cluster-certificate", clusterId] as const,
  cluster: (id: string | undefined) => ["cluster", id] as const,
  clusterCredentials: (clusterId: string) => ["cluster-credentials", clusterId] as const,
  bindings: (clusterId: string) => ["bindings", clusterId] as const,
  adapters: (clusterId: string) => ["adapters", clusterId] as const,
  approvalPolicy: (clusterId: string) => ["approval-policy", clusterId] as const,
  argocd: (clusterId: string) => ["argocd", clusterId] as const,
  directDeploys: (clusterId: string) => ["direct-deploys", clusterId] as const,
  inventory: (clusterId: string) => ["inventory", clusterId] as const,
  resources: (clusterId: string, filters: Filters, cursor: string | undefined) =>
    ["resources", clusterId, filters, cursor] as const,
  resource: (clusterId: string, ref: object) => ["resource", clusterId, ref] as const,
  pods: (clusterId: string, namespace: string) => ["pods", clusterId, namespace] as const,
  pod: (clusterId: string, namespace: string, pod: string) => ["pod", clusterId, namespace, pod] as const,
  commands: (clusterId: string) => ["commands", clusterId] as const,
  commandList: (clusterId: string, filters: Filters) => ["commands", clusterId, filters] as const,
  command: (id: string | undefined) => ["command", id] as const,
  drift: (clusterId: string) => ["drift", clusterId] as const,
  driftList: (clusterId: string, filters: Filters) => ["drift", clusterId, filters] as const,
  driftCheck: (clusterId: string, checkId: string | null) => ["drift-check", clusterId, checkId] as const,
  driftFinding: (clusterId: string, findingId: string) => ["drift-finding", clusterId, findingId] as const,

  // Projects
  projects: () => ["projects"] as const,
  project: (id: string | undefined) => ["project", id] as const,
  /** Everything of a project's configuration (environments, tenants, workloads, values, variables). */
  config: (projectId: string) => ["config", projectId] as const,
  configPart: (projectId: string, part: "environments" | "tenants" | "workloads" | "values" | "variables") =>
    ["config", projectId, part] as const,
  fence: (projectId: string) => ["fence", projectId] as const,
  deployTokens: (projectId: string) => ["deploy-tokens", projectId] as const,
  deliveries: (projectId: string) => ["deliveries", projectId] as const,
  releases: (projectId: string) => ["releases", projectId] as const,
  release: (projectId: string, number: number) => ["release", projectId, number] as const,
  deployment: (projectId: string, deploymentId: string) => ["deployment", projectId, deploymentId] as const,
  generations: (projectId: string) => ["generations", projectId] as const,
  commits: (projectId: string) => ["commits", projectId] as const,
};

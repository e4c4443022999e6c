// The shapes the hub answers with, as docs/openapi.yaml describes them. schema.d.ts is generated
// from it (`npm run gen:api`, run by the build and the tests), so a field the hub renames or
// removes fails `tsc` where the UI reads it.
//
// The hub leaves null fields out of its answers (Jackson's non_null), and its schemas mark no
// property required: in the generated types every field is optional. `With<T, K>` names the
// fields the UI relies on being there; each must be a property of the schema (a key that is not
// fails `tsc`), and is then non-optional.

import type { components } from "./schema";

/** The hub's schemas by their name in docs/openapi.yaml. */
export type Schemas = components["schemas"];

/** T with the fields K present: the fields the hub always fills in. */
export type With<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> };

/** Every list answer: one page of items and, when there are more, the cursor of the next. */
export interface Page<T> {
  items: T[];
  nextCursor?: string | null;
}

export type Me = With<Schemas["Me"], "id" | "type" | "name" | "permissions">;

export type ClusterStatus = NonNullable<Schemas["ClusterView"]["status"]>;

/**
 * The agent's own figures in a cluster's health. The hub's schema types `agent` as "any JSON
 * value" (a JsonNode), so its fields are the agent's heartbeat as docs/api.md describes it.
 */
export interface AgentFigures {
  heapUsedBytes: number;
  heapMaxBytes: number;
  inventoryObjects: number;
  inventorySynced: boolean;
  unavailableKinds: string[];
}

export type ClusterHealth = Omit<Schemas["Figures"], "agent"> & { agent?: AgentFigures };

export type Cluster = Omit<
  With<Schemas["ClusterView"], "id" | "name" | "labels" | "status" | "capabilities" | "createdAt">,
  "health"
> & { health?: ClusterHealth };

export type Registration = Omit<
  With<Schemas["RegistrationResponse"], "cluster" | "registrationToken" | "expiresAt" | "installCommand">,
  "cluster"
> & { cluster: Cluster };

export type Decision = With<Schemas["CommandController.DecisionView"], "policy" | "version" | "outcome" | "reasons">;

/**
 * What a deployment changes on its deploy branches, counted when its decision was asked for
 * (docs/api.md, `changes` of a deployment).
 */
export type DeploymentChanges = With<
  Schemas["ChangeSummary"],
  "added" | "changed" | "removed" | "clusterScoped" | "rbac" | "sensitive" | "images" | "unreadable" | "truncated"
>;

export type TimelineEvent = With<Schemas["EventView"], "seq" | "at" | "status" | "actor" | "detail">;

export type Vote = With<Schemas["VoteView"], "memberId" | "name" | "approve" | "counted" | "at">;

export type ApprovalView = Omit<
  With<
    Schemas["ApprovalView"],
    | "id"
    | "kind"
    | "status"
    | "requiredApprovers"
    | "approverRoles"
    | "approverTeams"
    | "createdAt"
    | "expiresAt"
    | "votes"
  >,
  "votes"
> & { votes: Vote[] };

export type Command = Omit<
  With<
    Schemas["CommandDetail"],
    "id" | "clusterId" | "type" | "target" | "params" | "requester" | "breakGlass" | "status" | "createdAt"
  >,
  "target" | "requester" | "decision" | "approvals" | "timeline"
> & {
  target: With<Schemas["CommandController.Target"], "namespace" | "kind" | "name">;
  requester: With<Schemas["CommandController.RequesterView"], "id" | "type" | "name">;
  decision?: Decision;
  approvals?: ApprovalView[];
  timeline?: TimelineEvent[];
};

export type ApprovalSubject = Omit<With<Schemas["Subject"], "type" | "breakGlass">, "changes"> & {
  /** What the deployment changes, once the policy counted it. */
  changes?: DeploymentChanges;
};

export type ApprovalItem = Omit<
  With<
    Schemas["Item"],
    | "id"
    | "kind"
    | "status"
    | "summary"
    | "requiredApprovers"
    | "approvals"
    | "approverRoles"
    | "approverTeams"
    | "subject"
    | "createdAt"
    | "expiresAt"
  >,
  "subject"
> & { subject: ApprovalSubject };

export type PolicySummary = With<Schemas["PolicySummary"], "name" | "version" | "createdBy" | "createdAt">;

export type PolicyVersion = With<Schemas["VersionView"], "version" | "createdBy" | "createdAt" | "active">;

/** A policy (GET /policies/{name}, PUT's answer) or one of its versions (GET …/versions/{n}). */
export type Policy = Omit<
  With<Schemas["PolicyDetail"], "name" | "version" | "createdBy" | "createdAt" | "rego">,
  "versions"
> & { versions?: PolicyVersion[] };

export type AuditEntry = Omit<
  With<Schemas["EntryView"], "seq" | "at" | "actor" | "action" | "target" | "details" | "prevHash" | "hash">,
  "actor" | "target" | "details"
> & {
  actor: With<Schemas["Actor"], "type" | "id" | "name">;
  target: With<Schemas["AuditController.Target"], "type" | "id">;
  /** "any JSON value" in the hub's schema: the action's own details. */
  details: Record<string, unknown>;
};

export type AuditVerify = With<Schemas["AuditVerification"], "valid" | "entriesChecked">;

export type Project = Omit<
  With<Schemas["ProjectViews.ProjectView"], "id" | "name" | "configRevision" | "repository" | "createdAt">,
  "repository"
> & { repository: With<Schemas["Repository"], "cloneUrl" | "mainBranch"> };

type ReleaseFields = "id" | "number" | "kind" | "configRevision" | "requester" | "createdAt";
type ReleaseRequester = With<Schemas["ReleaseController.RequesterView"], "id" | "name">;

/** A release as the list shows it (GET /projects/{id}/releases). */
export type Release = Omit<With<Schemas["ReleaseView"], ReleaseFields>, "requester"> & { requester: ReleaseRequester };

/** One release with where it went (GET /projects/{id}/releases/{number}). */
export type ReleaseDetail = Omit<
  With<Schemas["ReleaseDetail"], ReleaseFields>,
  "requester" | "environments" | "deployments"
> & {
  requester: ReleaseRequester;
  environments?: With<Schemas["EnvironmentState"], "environment" | "status" | "deploymentId">[];
  deployments?: With<Schemas["DeploymentSummary"], "id" | "action" | "environments" | "status" | "createdAt">[];
};

/** A project's fence (docs/delivery.md#namespaces-kind-scopes-and-the-fence). */
export type ProjectFence = With<
  Schemas["ProjectFenceController.FenceView"],
  /** `default`: true while no admin has set one: the lists are the hub's default fence. */
  "allowedNamespaces" | "clusterScopedKinds" | "deniedKinds" | "default"
>;

/** What one Flux or Argo CD cluster ran of a deployment, when the hub last looked. */
export type ClusterRun = With<Schemas["ClusterRun"], "environment" | "cluster" | "mode" | "verified">;

/** An organization environment; `verifyTimeoutSeconds` is absent when its deployments are not verified. */
export type OrgEnvironment = With<Schemas["ResourceViews.EnvironmentView"], "name" | "position" | "createdAt">;

export type FreezeWindow = With<
  Schemas["WindowView"],
  "id" | "startsAt" | "endsAt" | "active" | "createdBy" | "createdAt"
>;

/** The organization's plan, its feature gates and the plan each gate needs. */
export type Features = Schemas["Features"];

export type Member = With<Schemas["MemberView"], "id" | "email" | "name" | "role">;

export type Team = With<Schemas["TeamController.TeamView"], "id" | "name" | "memberCount">;

export type Grant = With<Schemas["TeamController.GrantView"], "id" | "role" | "scope">;

export type TeamDetail = With<Schemas["TeamDetail"], "id" | "name">;

export type ServiceAccount = With<Schemas["ServiceAccountView"], "id" | "name" | "scopes">;

/** An API token's metadata, as the token lists show it; `status` is active, expired or revoked. */
export type TokenView = With<Schemas["MemberController.TokenView"], "id" | "name" | "scopes" | "status" | "createdAt">;

/** A token just created: the only answer that carries its value. */
export type CreatedToken = With<Schemas["MemberController.TokenView"], "id" | "name" | "token">;

export type Org = With<
  Schemas["OrgView"],
  "id" | "slug" | "name" | "plan" | "operator" | "members" | "clusters" | "createdAt"
>;

export type CreatedOrg = Omit<With<Schemas["CreatedOrg"], "org" | "ownerId" | "ownerEmail" | "ownerToken">, "org"> & {
  org: Org;
};

/** `source`: organization, configuration or none. */
export type NotificationSettings = With<Schemas["SettingsView"], "source" | "secretSet" | "events" | "knownEvents">;

/** A reusable approval policy (docs/policies.md#approval-policy-objects). */
export type ApprovalPolicy = With<
  Schemas["ApprovalPolicyView"],
  | "name"
  | "requireApproval"
  | "autoApprove"
  | "requiredApprovers"
  | "approverRoles"
  | "approverTeams"
  | "breakGlass"
  | "clusters"
  | "governs"
>;

/** A label selector as the hub stores it: matchLabels and matchExpressions. */
export type LabelSelector = Schemas["LabelSelector"];

/** The approval policy in force for a cluster, and why (the cluster view's approvalPolicy). */
export type PolicyInForce = With<Schemas["ApprovalPolicyInForce"], "name" | "attachedBy" | "reason">;

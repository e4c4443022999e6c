-- Reusable approval policies (issue 27, item 2). An approval policy is an object of its
-- organization with a name and the rules a cluster's approval settings had (required approvals,
-- approvers by role or team, auto-approve, break-glass). It governs clusters it is attached to:
-- by cluster name (clusters) and/or by a Kubernetes-style label selector (selector: {matchLabels,
-- matchExpressions}). The most specific attachment wins (docs/policies.md#approval-policy-objects).
create table approval_policies (
    id                  uuid not null,
    org_id              uuid not null references organizations (id),
    name                text not null check (name ~ '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' and length(name) <= 63),
    description         text not null default '',
    require_approval    text[] not null,
    auto_approve        text[] not null,
    required_approvers  integer not null check (required_approvers between 1 and 10),
    approver_roles      text[] not null,
    approver_teams      text[] not null,
    break_glass_allowed boolean not null,
    break_glass_roles   text[] not null,
    -- Attachment by cluster name. A name, not an id: a cluster registered again under the same
    -- name is governed by the same policy, and a policy may name a cluster not registered yet.
    clusters            text[] not null default '{}',
    -- Attachment by label selector; null when the policy has none. {} matches every cluster.
    selector            jsonb,
    created_by          text not null,
    created_at          timestamptz not null,
    updated_by          text not null,
    updated_at          timestamptz not null,
    primary key (org_id, id),
    unique (org_id, name)
);

create index approval_policies_clusters on approval_policies using gin (clusters);

-- Every cluster's bound settings become one policy attached to that cluster by name, named
-- cluster-<cluster name> (a name longer than 55 characters is cut to 46 and given 8 characters of
-- the cluster's id, so the policy name stays a DNS label of at most 63), so each cluster is
-- governed exactly as before.
insert into approval_policies (id, org_id, name, description, require_approval, auto_approve,
                               required_approvers, approver_roles, approver_teams,
                               break_glass_allowed, break_glass_roles, clusters, selector,
                               created_by, created_at, updated_by, updated_at)
select gen_random_uuid(), p.org_id,
       case when length(c.name) <= 55 then 'cluster-' || c.name
            else 'cluster-' || rtrim(left(c.name, 46), '-') || '-' || left(md5(c.id::text), 8) end,
       'The approval settings of cluster ' || c.name || ', moved here by the migration to approval policies.',
       p.require_approval, p.auto_approve, p.required_approvers, p.approver_roles,
       p.approver_teams, p.break_glass_allowed, p.break_glass_roles, array[c.name], null,
       p.updated_by, p.updated_at, p.updated_by, p.updated_at
  from cluster_approval_policies p
  join clusters c on c.org_id = p.org_id and c.id = p.cluster_id;

drop table cluster_approval_policies;

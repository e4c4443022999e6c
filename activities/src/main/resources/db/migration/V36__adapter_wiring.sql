-- The hub wires the runtime adapter of every binding: for each (project, environment, tenant) a
-- cluster delivers through Flux or Argo CD, its agent creates and keeps the adapter's objects.
-- 'manual': the hub leaves the cluster's adapter objects to its operators.
alter table clusters
    add column adapter text not null default 'auto' check (adapter in ('auto', 'manual'));

-- What the cluster's agent last reported for each binding it wired.
create table adapter_wirings (
    org_id      uuid not null,
    cluster_id  uuid not null,
    project_id  uuid not null,
    environment text not null,
    tenant      text not null,
    adapter     text not null check (adapter in ('flux', 'argocd')),
    outcome     text not null check (outcome in ('wired', 'failed', 'pending')),
    message     text not null default '',
    objects     jsonb not null default '[]'::jsonb,
    updated_at  timestamptz not null,
    primary key (cluster_id, project_id, environment, tenant),
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade,
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade
);
create index adapter_wirings_org on adapter_wirings (org_id, cluster_id);

-- The deploy token each cluster's adapter reads a project's repository with (one per project,
-- cluster and adapter; the token itself lives only in the cluster's Secret).
create table adapter_tokens (
    org_id     uuid not null,
    cluster_id uuid not null,
    project_id uuid not null,
    adapter    text not null check (adapter in ('flux', 'argocd')),
    token_id   uuid not null,
    secret     text not null,
    primary key (cluster_id, project_id, adapter),
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade,
    foreign key (org_id, token_id) references deploy_tokens (org_id, id) on delete cascade
);
create index adapter_tokens_org on adapter_tokens (org_id, cluster_id);

-- Direct deploy (capability direct.deploy): a cluster of a project environment
-- can be delivered to by the agent itself, with server-side apply, instead of
-- by Argo CD or Flux watching deploy/<environment>. docs/delivery.md#direct-deploy.

-- How each cluster of a project environment is delivered to. argocd and flux
-- mean the runtime adapter watches the deploy branch; direct means every
-- deployment makes the cluster's agent apply the branch's files.
alter table project_environment_clusters
    add column delivery_mode text not null default 'argocd'
        check (delivery_mode in ('argocd', 'flux', 'direct'));

-- One direct apply: a deployment's files for one cluster in one environment.
-- id is the idempotency key (deployment id, environment, cluster id) the
-- workflow derives; the agent answers a repeat of it with its first outcome.
-- While it waits for its agent it holds the Temporal task token of the apply
-- activity, completed by whichever replica receives the agent's result.
create table direct_applies (
    id                  text primary key,
    org_id              uuid not null,
    deployment_id       uuid not null,
    project_id          uuid not null,
    environment_id      uuid not null,
    environment         text not null,
    cluster_id          uuid not null,
    commit              text not null,
    status              text not null check (status in ('queued', 'sent', 'succeeded', 'failed')),
    error               text,
    results             jsonb not null default '[]'::jsonb,
    dispatch_task_token bytea,
    dispatch_deadline   timestamptz not null,
    health_timeout_s    integer not null,
    dispatched_at       timestamptz,
    created_at          timestamptz not null,
    finished_at         timestamptz,
    foreign key (org_id, deployment_id) references deployments (org_id, id) on delete cascade,
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);
create index direct_applies_dispatch on direct_applies (org_id, cluster_id) where dispatch_task_token is not null;
create index direct_applies_deployment on direct_applies (org_id, deployment_id);

-- What direct applies placed on a cluster, per project environment and tenant:
-- the set the next apply prunes from (objects the new release no longer holds).
-- Replaced by every successful apply of that cluster and project environment.
create table direct_applied_objects (
    org_id         uuid not null,
    cluster_id     uuid not null,
    project_id     uuid not null,
    environment_id uuid not null,
    tenant         text not null,
    api_version    text not null,
    kind           text not null,
    namespace      text not null,
    name           text not null,
    apply_id       text not null,
    applied_at     timestamptz not null,
    primary key (cluster_id, project_id, environment_id, tenant, api_version, kind, namespace, name),
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade,
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade
);
create index direct_applied_objects_scope on direct_applied_objects (org_id, cluster_id, project_id, environment_id);

-- A parked apply wakes the replica holding the cluster's stream, as a parked
-- command does (channel gitopshq_agents, V24).
create trigger direct_applies_parked
  after insert or update of dispatch_task_token on direct_applies
  for each row when (new.dispatch_task_token is not null)
  execute function gitopshq_command_parked();

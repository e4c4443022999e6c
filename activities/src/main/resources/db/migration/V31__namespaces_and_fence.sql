-- The fence an organization's admins put around a project's delivery (TenantFence: the
-- namespaces it may deliver into, the cluster-scoped kinds it may deliver, the kinds it may never
-- deliver). No row: the default fence (TenantFences.DEFAULT: any namespace but the reserved ones,
-- no cluster-scoped kinds, no RBAC or admission kinds).
create table project_fences (
    org_id               uuid not null,
    project_id           uuid not null,
    allowed_namespaces   text[] not null default '{}',
    cluster_scoped_kinds text[] not null default '{}',
    denied_kinds         text[] not null default '{}',
    updated_by           text not null,
    updated_at           timestamptz not null,
    primary key (org_id, project_id),
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade
);

-- Whether delivery writes the Namespace object of each namespace the environment's pattern gives.
alter table project_environments add column create_namespace boolean not null default false;

-- The scope (Namespaced or Cluster) of kinds the hub does not know, declared by the workload or
-- binding that delivers them: {"monitoring.coreos.com/ServiceMonitor": "Namespaced"}.
alter table workloads add column kind_scopes jsonb not null default '{}'::jsonb;
alter table bindings add column kind_scopes jsonb not null default '{}'::jsonb;

-- The cluster inventory the agents report (capability observe): the latest summary of every
-- object, never a Secret's or ConfigMap's data (the agent does not send it).
create table cluster_resources (
    org_id           uuid not null,
    cluster_id       uuid not null,
    uid              text not null,
    api_group        text not null,
    api_version      text not null,
    kind             text not null,
    namespace        text not null,
    name             text not null,
    labels           jsonb not null default '{}'::jsonb,
    status           text not null,
    health           text not null,
    created_at       timestamptz,
    resource_version text not null,
    -- The snapshot that last carried this row; a finished snapshot removes the others.
    snapshot_id      text not null,
    updated_at       timestamptz not null,
    primary key (cluster_id, uid),
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);

create index cluster_resources_list
    on cluster_resources (org_id, cluster_id, namespace, kind, name, uid);
create index cluster_resources_labels on cluster_resources using gin (labels jsonb_path_ops);

-- One row per cluster with an inventory: when it was last complete, and how fresh it is.
create table cluster_inventory (
    org_id       uuid not null,
    cluster_id   uuid primary key,
    snapshot_id  text not null,
    snapshot_at  timestamptz not null,
    as_of        timestamptz not null,
    objects      integer not null,
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);

-- Delivery: the object model (organization- and project-level resources),
-- delivery generation, hosted-Git deploy tokens, releases, deployments,
-- rollbacks and freeze windows. docs/delivery.md describes the model.
--
-- Every row carries org_id and every query filters by it. Names that become
-- path segments in the hosted repository (environments, tenants, workloads,
-- bindings, clusters) are RFC 1123 labels, checked by the API.

-- ---- organization level ------------------------------------------------------

-- Ordered stages (dev -> staging -> production); position orders them.
create table environments (
    id          uuid primary key,
    org_id      uuid not null references organizations (id),
    name        text not null,
    position    integer not null,
    description text not null default '',
    created_at  timestamptz not null,
    unique (org_id, name),
    unique (org_id, id)
);

-- The central registry of business tenants (customers, regions, ...).
create table tenants (
    id           uuid primary key,
    org_id       uuid not null references organizations (id),
    name         text not null,
    display_name text not null default '',
    labels       jsonb not null default '{}'::jsonb,
    created_at   timestamptz not null,
    unique (org_id, name),
    unique (org_id, id)
);

-- The Helm chart registry: a chart has immutable versions, each the uploaded
-- .tgz, checked when uploaded and identified by its SHA-256.
create table charts (
    id          uuid primary key,
    org_id      uuid not null references organizations (id),
    name        text not null,
    description text not null default '',
    created_at  timestamptz not null,
    unique (org_id, name),
    unique (org_id, id)
);

create table chart_versions (
    org_id      uuid not null,
    chart_id    uuid not null,
    version     text not null,
    app_version text not null default '',
    description text not null default '',
    digest      char(64) not null,
    size_bytes  integer not null,
    archive     bytea not null,
    uploaded_by text not null,
    created_at  timestamptz not null,
    primary key (chart_id, version),
    foreign key (org_id, chart_id) references charts (org_id, id) on delete cascade
);

-- Raw manifests and Kustomize bases: files (relative path -> text), validated
-- when stored; revision counts the changes.
create table manifest_bundles (
    id          uuid primary key,
    org_id      uuid not null references organizations (id),
    name        text not null,
    description text not null default '',
    files       jsonb not null,
    revision    integer not null default 1,
    updated_by  text not null,
    created_at  timestamptz not null,
    updated_at  timestamptz not null,
    unique (org_id, name),
    unique (org_id, id)
);

create table kustomize_bases (
    id          uuid primary key,
    org_id      uuid not null references organizations (id),
    name        text not null,
    description text not null default '',
    files       jsonb not null,
    revision    integer not null default 1,
    updated_by  text not null,
    created_at  timestamptz not null,
    updated_at  timestamptz not null,
    unique (org_id, name),
    unique (org_id, id)
);

-- ---- projects ------------------------------------------------------------------

-- config_revision counts configuration changes (each is a commit on main);
-- generated_revision is the newest revision whose delivery has been generated.
-- webhook_secret is AES-GCM encrypted (docs/security.md).
create table projects (
    id                  uuid primary key,
    org_id              uuid not null references organizations (id),
    name                text not null,
    description         text not null default '',
    config_revision     bigint not null default 0,
    generated_revision  bigint not null default 0,
    webhook_secret      bytea,
    created_by          text not null,
    created_at          timestamptz not null,
    updated_at          timestamptz not null,
    unique (org_id, name),
    unique (org_id, id)
);

create table project_environments (
    org_id            uuid not null,
    project_id        uuid not null,
    environment_id    uuid not null,
    namespace_pattern text not null,
    primary key (project_id, environment_id),
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade,
    foreign key (org_id, environment_id) references environments (org_id, id)
);

-- The clusters an environment of a project delivers to, each with optional
-- cluster-specific value overrides (e.g. a region's storage class).
create table project_environment_clusters (
    org_id         uuid not null,
    project_id     uuid not null,
    environment_id uuid not null,
    cluster_id     uuid not null,
    overrides      jsonb not null default '{}'::jsonb,
    primary key (project_id, environment_id, cluster_id),
    foreign key (project_id, environment_id) references project_environments (project_id, environment_id) on delete cascade,
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);
create index project_environment_clusters_cluster on project_environment_clusters (org_id, cluster_id);

create table project_tenants (
    org_id     uuid not null,
    project_id uuid not null,
    tenant_id  uuid not null,
    primary key (project_id, tenant_id),
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade,
    foreign key (org_id, tenant_id) references tenants (org_id, id)
);

-- A workload (service) is a chart version plus default values.
-- image_tag_path is the dotted values path the image-update webhook sets.
create table workloads (
    id             uuid primary key,
    org_id         uuid not null,
    project_id     uuid not null,
    name           text not null,
    chart_id       uuid not null,
    chart_version  text not null,
    values         jsonb not null default '{}'::jsonb,
    image_tag_path text not null default 'image.tag',
    created_at     timestamptz not null,
    updated_at     timestamptz not null,
    unique (project_id, name),
    unique (org_id, id),
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade,
    foreign key (chart_id, chart_version) references chart_versions (chart_id, version)
);

-- Values of one workload for one tenant in one environment.
create table tenant_values (
    org_id         uuid not null,
    project_id     uuid not null,
    workload_id    uuid not null,
    tenant_id      uuid not null,
    environment_id uuid not null,
    values         jsonb not null,
    updated_by     text not null,
    updated_at     timestamptz not null,
    primary key (workload_id, tenant_id, environment_id),
    foreign key (org_id, workload_id) references workloads (org_id, id) on delete cascade,
    foreign key (project_id, tenant_id) references project_tenants (project_id, tenant_id) on delete cascade,
    foreign key (project_id, environment_id) references project_environments (project_id, environment_id) on delete cascade
);

-- HQ variables. scope org: project_id is null; every other scope names its
-- project, and environment / tenant / service scopes name that one thing.
-- Precedence: org < project < environment < tenant < service.
create table variables (
    id             uuid primary key,
    org_id         uuid not null references organizations (id),
    scope          text not null check (scope in ('org', 'project', 'environment', 'tenant', 'service')),
    project_id     uuid,
    environment_id uuid,
    tenant_id      uuid,
    service        text,
    key            text not null,
    value          text not null,
    updated_by     text not null,
    updated_at     timestamptz not null,
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade,
    foreign key (org_id, environment_id) references environments (org_id, id) on delete cascade,
    foreign key (org_id, tenant_id) references tenants (org_id, id) on delete cascade,
    check ((scope = 'org') = (project_id is null)),
    check ((scope = 'environment') = (environment_id is not null)),
    check ((scope = 'tenant') = (tenant_id is not null)),
    check ((scope = 'service') = (service is not null)),
    unique nulls not distinct (org_id, scope, project_id, environment_id, tenant_id, service, key)
);

-- Kustomize bindings (a base) and manifest bindings (a bundle), applied to
-- tenant-environment pairs with overlays (JSON merge patches, docs/delivery.md).
create table bindings (
    id         uuid primary key,
    org_id     uuid not null,
    project_id uuid not null,
    name       text not null,
    kind       text not null check (kind in ('kustomize', 'manifests')),
    source_id  uuid not null,
    overlays   jsonb not null default '[]'::jsonb,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    unique (project_id, name),
    unique (org_id, id),
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade
);

create table binding_targets (
    org_id         uuid not null,
    binding_id     uuid not null,
    project_id     uuid not null,
    tenant_id      uuid not null,
    environment_id uuid not null,
    primary key (binding_id, tenant_id, environment_id),
    foreign key (org_id, binding_id) references bindings (org_id, id) on delete cascade,
    foreign key (project_id, tenant_id) references project_tenants (project_id, tenant_id) on delete cascade,
    foreign key (project_id, environment_id) references project_environments (project_id, environment_id) on delete cascade
);

-- Read-only access to a project's hosted repository over Git smart HTTP.
create table deploy_tokens (
    id           uuid primary key,
    org_id       uuid not null,
    project_id   uuid not null,
    name         text not null,
    token_hash   char(64) not null unique,
    created_by   text not null,
    created_at   timestamptz not null,
    expires_at   timestamptz,
    revoked_at   timestamptz,
    last_used_at timestamptz,
    unique (org_id, id),
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade
);
create index deploy_tokens_project on deploy_tokens (org_id, project_id);

-- ---- delivery generation -------------------------------------------------------

create table generations (
    id              uuid primary key,
    org_id          uuid not null,
    project_id      uuid not null,
    revision        bigint not null,
    config_commit   text not null,
    status          text not null check (status in ('planning', 'rendering', 'committed', 'unchanged', 'superseded', 'failed')),
    units           integer not null default 0,
    batches         integer not null default 0,
    changed_paths   integer not null default 0,
    commit          text,
    trigger         text not null,
    actor           text not null,
    detail          text not null default '',
    started_at      timestamptz not null,
    finished_at     timestamptz,
    unique (project_id, revision),
    unique (org_id, id),
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade
);

-- The units of one generation: their resolved inputs (never through workflow
-- history) and, once rendered, the Git tree of their output.
create table generation_units (
    org_id        uuid not null,
    generation_id uuid not null,
    idx           integer not null,
    batch         integer not null,
    path          text not null,
    input         jsonb not null,
    tree_id       char(40),
    primary key (generation_id, idx),
    foreign key (org_id, generation_id) references generations (org_id, id) on delete cascade
);
create index generation_units_batch on generation_units (generation_id, batch);

-- Per tenant-environment of a project: the last generation that changed its
-- output and the last deployment that delivered it (the Bindings tab).
create table deliveries (
    org_id            uuid not null,
    project_id        uuid not null,
    environment_id    uuid not null,
    tenant_id         uuid not null,
    generated_commit  text,
    generated_at      timestamptz,
    deployed_commit   text,
    deployed_release  uuid,
    deployed_at       timestamptz,
    primary key (project_id, environment_id, tenant_id),
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade
);

-- ---- releases, deployments, rollbacks, freezes --------------------------------

create table releases (
    id             uuid primary key,
    org_id         uuid not null,
    project_id     uuid not null,
    number         integer not null,
    kind           text not null check (kind in ('standard', 'rollback')),
    description    text not null default '',
    config_revision bigint not null,
    source_commit  text,
    rollback_of    uuid,
    scope          jsonb,
    requested_by   text not null,
    requester_name text not null,
    created_at     timestamptz not null,
    unique (project_id, number),
    unique (org_id, id),
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade
);

-- One governed move of a release into environments: its first deploy, a
-- promotion, or a rollback. commits maps environment name -> deploy commit.
create table deployments (
    id              uuid primary key,
    org_id          uuid not null,
    project_id      uuid not null,
    release_id      uuid not null,
    action          text not null check (action in ('deploy', 'promote', 'rollback')),
    environment_ids uuid[] not null,
    status          text not null check (status in ('pending', 'pending_approval', 'deploying', 'deployed',
                                                    'frozen', 'rejected', 'expired', 'cancelled', 'failed')),
    detail          text not null default '',
    policy          text,
    policy_version  integer,
    outcome         text,
    break_glass     boolean not null default false,
    justification   text not null default '',
    commits         jsonb not null default '{}'::jsonb,
    requested_by    text not null,
    requester_name  text not null,
    created_at      timestamptz not null,
    updated_at      timestamptz not null,
    finished_at     timestamptz,
    unique (org_id, id),
    foreign key (org_id, release_id) references releases (org_id, id) on delete cascade
);
create index deployments_release on deployments (org_id, release_id);

create table deployment_events (
    org_id        uuid not null,
    deployment_id uuid not null,
    seq           integer not null,
    at            timestamptz not null,
    status        text not null,
    actor         text not null,
    detail        text not null,
    primary key (deployment_id, seq),
    foreign key (org_id, deployment_id) references deployments (org_id, id) on delete cascade
);

-- Freeze windows: the data the gitopshq.freeze policy reads. A null
-- environment or project means every one.
create table freeze_windows (
    id             uuid primary key,
    org_id         uuid not null references organizations (id),
    environment_id uuid,
    project_id     uuid,
    starts_at      timestamptz not null,
    ends_at        timestamptz not null,
    reason         text not null,
    created_by     text not null,
    created_at     timestamptz not null,
    check (ends_at > starts_at),
    foreign key (org_id, environment_id) references environments (org_id, id) on delete cascade,
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade
);

-- The inbox now also holds releases, promotions and rollbacks.
alter table approvals drop constraint approvals_kind_check;
alter table approvals add constraint approvals_kind_check
    check (kind in ('command', 'break_glass_review', 'release', 'promotion', 'rollback'));

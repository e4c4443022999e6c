-- GitOpsHQ foundation schema: organizations, people and their tokens,
-- clusters and their tokens, and the hash-chained audit log.
--
-- Every row that belongs to an organization carries org_id, and every query
-- filters by it. Tokens are stored only as SHA-256 hex digests.

create table organizations (
    id          uuid primary key,
    slug        text not null unique,
    name        text not null,
    plan        text not null default 'enterprise',
    created_at  timestamptz not null default now()
);

create table members (
    id          uuid primary key,
    org_id      uuid not null references organizations (id),
    email       text not null,
    name        text not null,
    role        text not null check (role in ('owner', 'admin', 'member', 'viewer')),
    created_at  timestamptz not null,
    unique (org_id, email),
    unique (org_id, id)
);

create table service_accounts (
    id          uuid primary key,
    org_id      uuid not null references organizations (id),
    name        text not null,
    description text not null default '',
    scopes      text[] not null,
    created_by  uuid,
    created_at  timestamptz not null,
    unique (org_id, name),
    unique (org_id, id)
);

create table api_tokens (
    id                 uuid primary key,
    org_id             uuid not null references organizations (id),
    member_id          uuid,
    service_account_id uuid,
    name               text not null,
    token_hash         char(64) not null unique,
    -- Scopes narrow what the token may do: a member token with no scopes has
    -- its member's role; a service-account token has exactly these scopes.
    scopes             text[] not null default '{}',
    created_by         uuid,
    created_at         timestamptz not null,
    expires_at         timestamptz,
    revoked_at         timestamptz,
    foreign key (org_id, member_id) references members (org_id, id),
    foreign key (org_id, service_account_id) references service_accounts (org_id, id),
    check ((member_id is null) <> (service_account_id is null))
);
create index api_tokens_member on api_tokens (org_id, member_id);
create index api_tokens_service_account on api_tokens (org_id, service_account_id);

create table clusters (
    id                         uuid primary key,
    org_id                     uuid not null references organizations (id),
    name                       text not null,
    display_name               text not null default '',
    provider                   text not null default '',
    region                     text not null default '',
    environment                text not null default '',
    labels                     jsonb not null default '{}'::jsonb,
    agent_version              text,
    capabilities               text[] not null default '{}',
    heartbeat_interval_seconds integer not null default 30,
    registered_at              timestamptz,
    connected_at               timestamptz,
    -- The hub replica holding the agent's stream, or null when none does.
    connected_replica          text,
    last_seen_at               timestamptz,
    created_by                 text not null,
    created_at                 timestamptz not null,
    updated_at                 timestamptz not null,
    unique (org_id, name),
    unique (org_id, id)
);
create index clusters_labels on clusters using gin (labels jsonb_path_ops);

create table cluster_tokens (
    id          uuid primary key,
    org_id      uuid not null,
    cluster_id  uuid not null,
    kind        text not null check (kind in ('registration', 'agent')),
    token_hash  char(64) not null unique,
    status      text not null check (status in ('active', 'pending', 'consumed', 'expired', 'superseded', 'revoked')),
    created_at  timestamptz not null,
    expires_at  timestamptz,
    consumed_at timestamptz,
    revoked_at  timestamptz,
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade,
    check (kind = 'agent' or expires_at is not null)
);
create index cluster_tokens_cluster on cluster_tokens (org_id, cluster_id, kind, status);

-- The audit log is append-only and hash-chained per organization: each entry
-- stores the hash of the organization's previous entry, and its own hash
-- covers that link and every field, so editing or deleting a row breaks the
-- chain where it happened. GET /api/v2/audit/verify recomputes it.
create table audit_log (
    seq         bigserial primary key,
    org_id      uuid not null references organizations (id),
    at          timestamptz not null,
    actor_type  text not null,
    actor_id    text not null,
    actor_name  text not null,
    action      text not null,
    target_type text not null,
    target_id   text not null,
    details     text not null,
    prev_hash   char(64) not null,
    hash        char(64) not null
);
create index audit_log_org_seq on audit_log (org_id, seq);
create index audit_log_org_action on audit_log (org_id, action, seq);
create index audit_log_org_target on audit_log (org_id, target_id, seq);

create function audit_log_append_only() returns trigger
    language plpgsql as
$$
begin
    raise exception 'audit_log is append-only';
end
$$;

create trigger audit_log_append_only
    before update or delete on audit_log
    for each row execute function audit_log_append_only();

create trigger audit_log_no_truncate
    before truncate on audit_log
    for each statement execute function audit_log_append_only();

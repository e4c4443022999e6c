-- Credentials the hub syncs to clusters as Secrets (capability credential.sync): an image pull
-- secret (dockerconfigjson), a TLS certificate and key (tls) or opaque key-values (opaque).
-- The values are stored only sealed with the hub's encryption key (AES-256-GCM, SecretBox:
-- version || 12-byte random nonce || ciphertext || tag), the organization id and the credential
-- id bound as associated data ("credential:<org id>:<credential id>"), so a sealed value copied to
-- another row or organization does not open. key_id names the key that sealed it. The key names
-- (never the values) and, for tls, the certificate's SHA-256 fingerprint are kept in clear for the
-- API. version grows with every change of the values; agents report the version they applied.
create table credentials (
    id           uuid primary key,
    org_id       uuid not null references organizations (id),
    name         text not null,
    type         text not null check (type in ('dockerconfigjson', 'tls', 'opaque')),
    description  text not null default '',
    ciphertext   bytea not null,
    key_id       text not null,
    version      bigint not null default 1,
    key_names    text[] not null default '{}',
    fingerprint  text,
    created_by   text not null,
    created_at   timestamptz not null,
    updated_at   timestamptz not null,
    unique (org_id, name),
    unique (org_id, id)
);

-- One row per credential, cluster and target namespace, with the sync status the cluster's
-- Credentials tab shows: pending until the agent reports, then synced or failed (with the error);
-- last_synced_at is the last successful sync, synced_version the version it applied.
create table credential_assignments (
    org_id          uuid not null,
    credential_id   uuid not null,
    cluster_id      uuid not null,
    namespace       text not null,
    status          text not null default 'pending'
                    check (status in ('synced', 'pending', 'failed')),
    synced_version  bigint,
    last_synced_at  timestamptz,
    error           text,
    assigned_at     timestamptz not null,
    updated_at      timestamptz not null,
    primary key (credential_id, cluster_id, namespace),
    foreign key (org_id, credential_id) references credentials (org_id, id) on delete cascade,
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);
create index credential_assignments_cluster on credential_assignments (org_id, cluster_id);

-- Wake the replica holding the cluster's agent stream (channel gitopshq_agents, see V24) when a
-- credential is assigned to or removed from it, or a credential's values change: it re-syncs the
-- cluster's credentials and prunes what is no longer assigned. The payload carries ids only.
create function credential_assignments_notify() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform pg_notify('gitopshq_agents', 'credential:' || old.org_id || ':' || old.cluster_id);
    return old;
  end if;
  perform pg_notify('gitopshq_agents', 'credential:' || new.org_id || ':' || new.cluster_id);
  return new;
end $$;

create trigger credential_assignments_notify
    after insert or delete on credential_assignments
    for each row execute function credential_assignments_notify();

create function credentials_notify() returns trigger language plpgsql as $$
declare
  c uuid;
begin
  for c in select distinct cluster_id from credential_assignments
           where org_id = new.org_id and credential_id = new.id loop
    perform pg_notify('gitopshq_agents', 'credential:' || new.org_id || ':' || c);
  end loop;
  return new;
end $$;

create trigger credentials_notify
    after update of version on credentials
    for each row when (old.version is distinct from new.version)
    execute function credentials_notify();

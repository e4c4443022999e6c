-- Drift findings (docs/delivery.md "Drift"): objects a deployment delivered to a cluster whose live
-- state differs from the desired state of their project's deploy/<environment> branch.

-- One comparison of a cluster's desired objects with the live ones, however it was asked for.
create table drift_checks (
    id            uuid primary key,
    org_id        uuid not null,
    cluster_id    uuid not null,
    trigger       text not null check (trigger in ('deployment', 'interval', 'manual')),
    requested_by  text not null,
    status        text not null check (status in ('pending', 'running', 'completed', 'failed')),
    requested_at  timestamptz not null,
    -- A check after a deployment waits for the runtime (Argo CD, Flux, the agent) to apply it.
    not_before    timestamptz not null,
    started_at    timestamptz,
    finished_at   timestamptz,
    objects       integer not null default 0,
    drifted       integer not null default 0,
    opened        integer not null default 0,
    resolved      integer not null default 0,
    error         text,
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);
create index drift_checks_pending on drift_checks (org_id, cluster_id) where status = 'pending';
create index drift_checks_cluster on drift_checks (org_id, cluster_id, requested_at desc);

-- A finding is open while its object differs; the check that no longer sees a difference sets
-- resolved_at, and a difference that comes back opens a new finding (history and duration).
create table drift_findings (
    id                uuid primary key,
    org_id            uuid not null,
    cluster_id        uuid not null,
    project_id        uuid not null,
    environment       text not null,
    tenant            text not null,
    source_path       text not null,
    api_group         text not null,
    api_version       text not null,
    kind              text not null,
    namespace         text not null,
    name              text not null,
    severity          text not null check (severity in ('functional', 'cosmetic')),
    state             text not null check (state in ('drifted', 'missing')),
    differences       jsonb not null default '[]'::jsonb,
    -- The desired object (JSON, at most 256 KiB) the resolve-drift command re-applies; never
    -- returned by the API.
    desired_manifest  text not null,
    field_manager     text not null,
    argo_application  text not null default '',
    method            text not null default '',
    first_detected_at timestamptz not null,
    last_seen_at      timestamptz not null,
    resolved_at       timestamptz,
    last_check_id     uuid,
    resolved_by_check uuid,
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);
create unique index drift_findings_open
    on drift_findings (org_id, cluster_id, api_group, kind, namespace, name)
    where resolved_at is null;
create index drift_findings_cluster on drift_findings (org_id, cluster_id, first_detected_at desc);

-- Every hub replica listens on 'gitopshq_drift' (api/.../drift/DriftRunner); the one that holds
-- the cluster's agent stream runs the check at once instead of on its next sweep.
create function gitopshq_drift_requested() returns trigger language plpgsql as $$
begin
  perform pg_notify('gitopshq_drift', 'check:' || new.org_id || ':' || new.cluster_id);
  return null;
end
$$;

create trigger drift_checks_requested
  after insert on drift_checks
  for each row execute function gitopshq_drift_requested();

-- resolve-drift becomes a governed command type (CommandTypes.RESOLVE_DRIFT).
alter table commands drop constraint commands_type_check;
alter table commands add constraint commands_type_check
    check (type in ('sync', 'refresh', 'rollback', 'restart', 'scale', 'resolve-drift'));

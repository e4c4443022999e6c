-- Agent health: what the agent reports with its heartbeats, and its connection sessions, from
-- which the uptime over 24 hours, 7 days and 30 days is computed.
alter table clusters add column agent_status jsonb;
alter table clusters add column heartbeat_rtt_millis integer;

create table agent_sessions (
    org_id           uuid not null,
    cluster_id       uuid not null,
    id               uuid primary key,
    replica          text not null,
    connected_at     timestamptz not null,
    -- Null while the stream is open, or when its replica died without closing it; the uptime
    -- then counts it up to the cluster's last heartbeat.
    disconnected_at  timestamptz,
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);

create index agent_sessions_cluster on agent_sessions (org_id, cluster_id, connected_at);

-- Drift comparisons that could not be made (docs/delivery.md "Drift"): an object the agent could
-- not compare (the API server refused, the check's deadline passed) or did not report is never in
-- sync. Like Argo CD's sync status Unknown with its comparison error, it is a state of one check's
-- comparison, not a drift: it has no severity, nothing to resolve, and it neither opens nor
-- resolves a finding (an open finding stays open until a check compares its object again).

-- How many of a check's objects were not compared.
alter table drift_checks add column unknown integer not null default 0;

-- The objects one check did not compare, and why (for people: bounded, control characters
-- escaped). The hub keeps them for a cluster's newest checks (DriftStore.KEPT_UNKNOWN_CHECKS);
-- an older check keeps only its count.
create table drift_unknowns (
    org_id       uuid not null,
    check_id     uuid not null references drift_checks (id) on delete cascade,
    cluster_id   uuid not null,
    project_id   uuid not null,
    environment  text not null,
    tenant       text not null,
    source_path  text not null,
    api_group    text not null,
    api_version  text not null,
    kind         text not null,
    namespace    text not null,
    name         text not null,
    reason       text not null,
    primary key (check_id, api_group, kind, namespace, name)
);
create index drift_unknowns_cluster on drift_unknowns (org_id, cluster_id);

-- Cluster labels the agent reports (the agent chart's cluster.labels, sent in Register and
-- Hello), kept apart from the labels set in the hub (clusters.labels). Selectors and policies see
-- the two merged, the hub's value winning for a key set in both (docs/delivery.md).
alter table clusters add column reported_labels jsonb not null default '{}'::jsonb;

-- The freeze policy's decisions, with the input it decided on, so a what-if of a draft of the
-- freeze policy can replay them as it replays command and deployment decisions (V52). One row per
-- governed subject: a decision asked again (an activity retried) replaces the earlier one.
create table freeze_decisions (
    org_id          uuid        not null references organizations (id) on delete cascade,
    subject_kind    text        not null check (subject_kind in ('command', 'deployment')),
    subject_id      uuid        not null,
    policy_name     text        not null,
    policy_version  integer     not null,
    outcome         text        not null check (outcome in ('open', 'frozen', 'blocked')),
    reasons         text[]      not null default '{}',
    decision_input  jsonb       not null,
    decided_at      timestamptz not null,
    primary key (org_id, subject_kind, subject_id)
);
create index freeze_decisions_policy_decided
    on freeze_decisions (org_id, policy_name, decided_at desc);

-- Commands on clusters, their timelines, the approvals inbox, the approval
-- policy settings bound to each cluster, and member teams (approvers can be
-- named by team).

alter table members add column teams text[] not null default '{}';

-- The cluster's bound approval-policy settings (seed: "Cluster Approval
-- Policies"). OPA receives them as input.settings; no row means the policy's
-- defaults apply.
create table cluster_approval_policies (
    org_id              uuid not null,
    cluster_id          uuid not null,
    require_approval    text[] not null,
    auto_approve        text[] not null,
    required_approvers  integer not null check (required_approvers between 1 and 10),
    approver_roles      text[] not null,
    approver_teams      text[] not null,
    break_glass_allowed boolean not null,
    break_glass_roles   text[] not null,
    updated_by          text not null,
    updated_at          timestamptz not null,
    primary key (org_id, cluster_id),
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);

create table commands (
    id                        uuid primary key,
    org_id                    uuid not null,
    cluster_id                uuid not null,
    type                      text not null check (type in ('sync', 'rollback', 'restart', 'scale')),
    target_namespace          text not null,
    target_kind               text not null,
    target_name               text not null,
    params                    jsonb not null default '{}'::jsonb,
    reason                    text not null default '',
    requester_id              text not null,
    requester_type            text not null,
    requester_name            text not null,
    break_glass               boolean not null default false,
    break_glass_justification text,
    status                    text not null check (status in ('pending', 'pending_approval', 'executing',
                                  'completed', 'failed', 'rejected', 'expired', 'cancelled')),
    status_detail             text not null default '',
    policy_name               text,
    policy_version            integer,
    decision_outcome          text,
    decision_reasons          text[],
    output                    text,
    error                     text,
    -- While the command waits for its agent: the Temporal task token of the
    -- execute activity (completed by whichever replica gets the result), the
    -- deadline after which the agent must not start it, and when it was last
    -- sent down a stream.
    dispatch_task_token       bytea,
    dispatch_deadline         timestamptz,
    dispatched_at             timestamptz,
    created_at                timestamptz not null,
    updated_at                timestamptz not null,
    finished_at               timestamptz,
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade,
    unique (org_id, id)
);
create index commands_cluster_created on commands (org_id, cluster_id, created_at desc, id desc);
create index commands_dispatch on commands (org_id, cluster_id) where dispatch_task_token is not null;

-- Every state change of a command, numbered by the workflow (the key that
-- makes a retried activity append nothing twice).
create table command_events (
    org_id     uuid not null,
    command_id uuid not null,
    seq        integer not null,
    at         timestamptz not null,
    status     text not null,
    actor      text not null,
    detail     text not null,
    primary key (command_id, seq),
    foreign key (org_id, command_id) references commands (org_id, id) on delete cascade
);

-- The approvals inbox: one row per approval workflow (approval-{id}).
create table approvals (
    id                 text primary key,
    org_id             uuid not null references organizations (id),
    kind               text not null check (kind in ('command', 'break_glass_review')),
    subject_id         uuid not null,
    cluster_id         uuid,
    requester_id       text not null,
    required_approvers integer not null,
    approver_roles     text[] not null,
    approver_teams     text[] not null,
    summary            text not null,
    status             text not null check (status in ('open', 'approved', 'rejected', 'expired', 'cancelled')),
    created_at         timestamptz not null,
    expires_at         timestamptz not null,
    closed_at          timestamptz,
    unique (org_id, id)
);
create index approvals_org_open on approvals (org_id, status, created_at);
create index approvals_subject on approvals (org_id, subject_id);

create table approval_votes (
    org_id      uuid not null,
    approval_id text not null,
    idx         integer not null,
    member_id   text not null,
    member_name text not null,
    approve     boolean not null,
    comment     text not null default '',
    counted     boolean not null,
    why         text,
    at          timestamptz not null,
    primary key (approval_id, idx),
    foreign key (org_id, approval_id) references approvals (org_id, id) on delete cascade
);

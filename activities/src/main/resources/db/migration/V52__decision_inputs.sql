-- Every decision records the input document OPA decided on and when, so a policy author can
-- evaluate a draft against the organization's recorded decisions before publishing it (a
-- what-if, docs/policies.md). Null for decisions made before these columns existed: a what-if
-- lists those as "input not recorded" rather than guessing their input.
alter table commands add column decision_input jsonb;
alter table commands add column decided_at timestamptz;
alter table deployments add column decision_input jsonb;
alter table deployments add column decided_at timestamptz;
create index commands_policy_decided on commands (org_id, policy_name, created_at desc)
    where policy_name is not null;
create index deployments_policy_decided on deployments (org_id, policy_name, created_at desc)
    where policy_name is not null;

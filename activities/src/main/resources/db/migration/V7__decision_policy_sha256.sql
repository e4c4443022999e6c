-- Every decision records the SHA-256 of the policy text that produced it (OPA reports it with
-- the decision, from the rule gitopshq_policy_sha256 the hub appends when it publishes), so an
-- auditor can match a decision to the exact text of the stored version. Null for decisions made
-- before this column existed.
alter table commands add column policy_sha256 char(64);
alter table deployments add column policy_sha256 char(64);

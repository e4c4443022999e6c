-- Credential sync is a governed job: the workflow credential-sync-<cluster> asks the organization's
-- gitopshq.credentials policy about every target before anything is sent.
--
-- policy_denied: the last decision denied this target; its status is 'failed' and error holds the
--   policy's reasons. An agent's late answer never turns it back to synced.
-- decision_id:   the sync round whose decision covers the target. A round sends exactly the
--   targets it decided and allowed, so a target assigned after the decision waits for the next
--   round (the change that assigned it signals one).
alter table credential_assignments
    add column policy_denied boolean not null default false,
    add column decision_id uuid;

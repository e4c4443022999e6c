-- Access that can be taken back: API tokens keep when they were last used, members can be
-- removed (their tokens and sessions are revoked with them), service accounts have an owner and
-- can be disabled, and an approval remembers who stands behind its requester (a service
-- account's creator and owner), none of whom may approve it.

alter table api_tokens add column last_used_at timestamptz;
alter table api_tokens add column revoked_by text;

-- A removed member keeps their row (the audit log, commands and approvals name them), but signs
-- in no more; their email can be added again as a new member.
alter table members add column removed_at timestamptz;
alter table members drop constraint members_org_id_email_key;
create unique index members_org_email_active on members (org_id, email) where removed_at is null;
drop index members_oidc_identity;
create unique index members_oidc_identity on members (org_id, oidc_issuer, oidc_subject)
    where oidc_subject is not null and removed_at is null;

-- The member answerable for a service account (its creator until changed). Disabled accounts'
-- tokens are refused; their scopes bound every token they hold, now and after a change.
alter table service_accounts add column owner_member_id uuid;
alter table service_accounts add column disabled_at timestamptz;
update service_accounts set owner_member_id = created_by;

-- Members who may not approve: the requester's creator and owner when the requester is a
-- service account (four eyes means two people, not a person and their robot).
alter table approvals add column requester_behind text[] not null default '{}';

-- Many organizations on one hub: the operator organization (the one the bootstrap creates) whose
-- owners create the others, and notification settings per organization instead of one hub-wide
-- webhook.

alter table organizations add column operator boolean not null default false;
create unique index organizations_one_operator on organizations (operator) where operator;
alter table organizations add column created_by text;

-- Where an organization's events go. The HMAC secret is sealed with the hub's encryption key
-- (GITOPSHQ_ENCRYPTION_KEY); it is never returned. An empty events list means every event.
create table org_notifications (
    org_id         uuid primary key references organizations (id),
    webhook_url    text not null,
    secret_sealed  bytea not null,
    events         text[] not null default '{}',
    updated_at     timestamptz not null,
    updated_by     text not null
);

-- Versioned Rego policies. Each version is immutable; publishing stores a new
-- version and moves the "active" flag to it in one transaction, after OPA has
-- accepted (compiled) the text. At most one version per (org_id, name) is
-- active. The text is stored as the author wrote it: the hub appends
-- `gitopshq_policy_version := <version>` only when uploading to OPA.
create table policies (
    org_id      uuid not null references organizations (id),
    name        text not null check (name ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
    version     integer not null check (version >= 1),
    rego        text not null,
    -- A member or service-account id, or 'system' for a shipped default.
    created_by  text not null,
    created_at  timestamptz not null,
    active      boolean not null,
    primary key (org_id, name, version)
);

create unique index policies_one_active on policies (org_id, name) where active;

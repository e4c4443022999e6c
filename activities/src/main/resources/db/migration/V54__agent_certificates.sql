-- Certificate identity for agents (issue 27 item 5). Each organization has its own CA, created on
-- first use; its private key is sealed with the hub's encryption key (SecretBox, context
-- agent-ca:<org id>). The CA signs short-lived client certificates for its clusters' agents, which
-- the agent gateway accepts as mutual TLS next to the agent token.
create table agent_cas (
    org_id          uuid primary key references organizations (id),
    certificate_pem text        not null,
    key_sealed      bytea       not null,
    created_at      timestamptz not null
);

-- Every client certificate the hub issued: the serial (hex) is what a TLS peer presents.
create table agent_certificates (
    id          uuid primary key,
    org_id      uuid        not null,
    cluster_id  uuid        not null,
    serial      text        not null unique,
    not_before  timestamptz not null,
    not_after   timestamptz not null,
    created_at  timestamptz not null,
    revoked_at  timestamptz,
    revoked_by  text,
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);
create index agent_certificates_cluster on agent_certificates (org_id, cluster_id, created_at desc);

-- The organization's policy: true refuses agent streams that present no valid client certificate.
alter table organizations add column require_agent_certificate boolean not null default false;

-- A revoked certificate's stream ends at once: every replica hears this, the holder re-checks.
create function gitopshq_agent_certificate_revoked() returns trigger language plpgsql as $$
begin
  perform pg_notify('gitopshq_agents', 'token:' || new.org_id || ':' || new.cluster_id);
  return null;
end $$;

create trigger agent_certificates_revoked
  after update of revoked_at on agent_certificates
  for each row when (old.revoked_at is null and new.revoked_at is not null)
  execute function gitopshq_agent_certificate_revoked();

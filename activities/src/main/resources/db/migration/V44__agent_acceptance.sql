-- Hub acceptance (double opt-in, issue 27 item 4). An organization may require that an admin
-- accepts every newly registered agent before the hub uses it; a registration token may say so
-- itself, and then its choice wins over the organization's default.
alter table organizations add column require_agent_acceptance boolean not null default false;

-- Registration tokens only: true or false decides for this token, null follows the organization.
alter table cluster_tokens add column require_acceptance boolean;

-- The decision about the agent that registered last: null when none was required, otherwise
-- pending, accepted or rejected. acceptance_token_id is the registration token whose registration
-- waits (its workflow is registration-{id}).
alter table clusters add column acceptance text
    check (acceptance in ('pending', 'accepted', 'rejected'));
alter table clusters add column acceptance_token_id uuid;
alter table clusters add column acceptance_decided_by text;
alter table clusters add column acceptance_decided_at timestamptz;

-- What the agent reported about its cluster (Register, then every Hello): never the API server's
-- address, only its SHA-256.
alter table clusters add column api_server_sha256 char(64);
alter table clusters add column node_count integer;
alter table clusters add column kubernetes_version text;
alter table clusters add column identity_reported_at timestamptz;

-- An accepted cluster's agent holds a stream that gets no work yet: every replica hears this and
-- the one holding it ends the stream, so the agent reconnects into an ordinary one at once.
create function gitopshq_cluster_decided() returns trigger language plpgsql as $$
begin
  perform pg_notify('gitopshq_agents', 'token:' || new.org_id || ':' || new.id);
  return null;
end
$$;

create trigger clusters_acceptance_decided
  after update of acceptance on clusters
  for each row when (old.acceptance = 'pending' and new.acceptance is distinct from 'pending')
  execute function gitopshq_cluster_decided();

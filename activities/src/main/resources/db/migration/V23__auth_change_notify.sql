-- Hubs cache authentications (api/.../security/AuthCache). Every change that
-- can take a caller's access away or narrow it tells every hub at once, on the
-- channel 'gitopshq_auth', when its transaction commits; a hub drops its whole
-- cache on it. Statement-level triggers: one notification per statement, and
-- none for writes that cannot change an authentication (api_tokens.last_used_at,
-- new rows: a token nobody has presented yet is in no cache).
create function gitopshq_auth_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('gitopshq_auth', tg_table_name);
  return null;
end
$$;

create trigger api_tokens_auth_changed
  after update of token_hash, revoked_at, expires_at, scopes, org_id, member_id, service_account_id
  or delete on api_tokens
  for each statement execute function gitopshq_auth_changed();

create trigger member_sessions_auth_changed
  after update of token_hash, revoked_at, expires_at, org_id, member_id or delete on member_sessions
  for each statement execute function gitopshq_auth_changed();

create trigger members_auth_changed
  after update of role, removed_at, email, org_id or delete on members
  for each statement execute function gitopshq_auth_changed();

create trigger service_accounts_auth_changed
  after update of scopes, disabled_at, name, org_id or delete on service_accounts
  for each statement execute function gitopshq_auth_changed();

create trigger organizations_auth_changed
  after update of operator or delete on organizations
  for each statement execute function gitopshq_auth_changed();

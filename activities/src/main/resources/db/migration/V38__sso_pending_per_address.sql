-- Browser sign-ins in flight remember the client address that started them, so one address can
-- hold only a few (SsoLogin.MAX_PENDING_PER_ADDRESS) and cannot fill the table for everyone.
alter table oidc_logins add column client_address text;
create index oidc_logins_client on oidc_logins (client_address, expires_at);

-- Security probe (issue 26) N3: a browser sign-in carries the web UI's own random state
-- (client_state), which the hub hands back with the session token in the URL fragment; the UI
-- accepts a session only for a sign-in its tab started. Sign-ins in flight at the upgrade have
-- none and end without a session in the UI.
alter table oidc_logins add column client_state text;

-- Security probe (issue 26) N6: each access token of the provider buys one hub session. The
-- SHA-256 of the token's identity (its issuer and jti, or its signed content without a jti) is
-- kept until the token expires, so a second exchange is refused; expired rows are pruned at
-- the next exchange.
create table oidc_exchanged_tokens (
    org_id       uuid not null references organizations (id),
    token_hash   char(64) not null,
    exchanged_at timestamptz not null,
    expires_at   timestamptz not null,
    primary key (org_id, token_hash)
);
create index oidc_exchanged_tokens_expiry on oidc_exchanged_tokens (expires_at);

-- Single sign-on through OpenID Connect: members linked to their identity at the provider,
-- browser sign-ins in flight, and the hub sessions a sign-in issues.

-- The provider's issuer and subject ("sub") of a member who signed in through SSO.
alter table members add column oidc_issuer text;
alter table members add column oidc_subject text;
create unique index members_oidc_identity on members (org_id, oidc_issuer, oidc_subject)
    where oidc_subject is not null;

-- A browser sign-in between GET /api/v2/auth/oidc/login and its callback: found by the SHA-256
-- of its state parameter, used once, ten minutes at most. The PKCE code verifier is sealed
-- with the hub's encryption key.
create table oidc_logins (
    state_hash     char(64) primary key,
    org_id         uuid not null references organizations (id),
    nonce          text not null,
    code_verifier  bytea not null,
    created_at     timestamptz not null,
    expires_at     timestamptz not null
);
create index oidc_logins_expiry on oidc_logins (expires_at);

-- Hub session tokens (ghqo_ + 64 hex) issued by an SSO sign-in, stored as SHA-256. They act
-- with the member's current role, expire after GITOPSHQ_OIDC_SESSION_TTL and are revoked by
-- sign-out.
create table member_sessions (
    id          uuid primary key,
    org_id      uuid not null references organizations (id),
    member_id   uuid not null,
    token_hash  char(64) not null unique,
    client      text not null check (client in ('browser', 'cli')),
    created_at  timestamptz not null,
    expires_at  timestamptz not null,
    revoked_at  timestamptz,
    foreign key (org_id, member_id) references members (org_id, id) on delete cascade
);
create index member_sessions_member on member_sessions (org_id, member_id);

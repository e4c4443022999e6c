-- The hub's Ed25519 keys that sign evidence documents (GET .../evidence). One key pair per hub
-- installation, made on first use: a signature says "this hub produced this document"; the
-- organization is inside what is signed. The private key (PKCS#8) is stored only sealed with the
-- hub's encryption key (AES-256-GCM, SecretBox, context "evidence-key:<id>"); the public key is
-- published at GET /api/v2/evidence/keys. Rotation is not implemented yet: the newest key signs.
create table evidence_keys (
    id                 text primary key,
    algorithm          text not null check (algorithm = 'Ed25519'),
    public_key         bytea not null,
    private_key_sealed bytea not null,
    created_at         timestamptz not null
);

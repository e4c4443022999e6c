-- Incremental generation by input fingerprint: each unit's SHA-256 over a canonical encoding of
-- everything that determines its rendered files (UnitFingerprint: the whole planned unit and the
-- renderer's output version). A unit whose fingerprint equals that of the same unit in an earlier
-- generation of the project, whose tree is recorded and still in the repository, takes that tree
-- instead of being rendered again. Units planned before this migration have no fingerprint and
-- are never reused.
alter table generation_units add column fingerprint char(64);

-- Per generation: how many of its units were rendered and how many reused an earlier tree
-- (null for generations planned before this migration).
alter table generations add column rendered_units integer;
alter table generations add column reused_units integer;

-- Incremental generation: a unit whose input (chart digest, merged values, variables, overlays:
-- the whole planned unit) and renderer version equal a unit of the project's last delivered
-- generation takes that unit's tree instead of being rendered again.
alter table generation_units add column renderer text not null default '';
create index generation_units_path on generation_units (org_id, generation_id, path);

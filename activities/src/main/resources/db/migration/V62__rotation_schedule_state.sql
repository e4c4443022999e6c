-- Whether the cluster has its token rotation Temporal Schedule (RotationSchedules), shared by the
-- replicas and kept across restarts, so that an agent's Hello reaches Temporal only when its
-- token.rotate capability differs from what was done last: true = ensured, false = removed,
-- null = unknown (the next Hello makes the Temporal call once and records the outcome).
--
-- Existing clusters start unknown (the column is added without a default, so their rows get
-- null): their schedules were made by replicas that kept the state in memory only. A cluster
-- created from now on has no schedule yet, so it starts with false.
alter table clusters add column rotation_scheduled boolean;
alter table clusters alter column rotation_scheduled set default false;

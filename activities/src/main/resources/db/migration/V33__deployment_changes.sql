-- What a deployment changes, object by object, summed up: the summary of the
-- `changes` the gitopshq.release decision reads (docs/policies.md), written
-- when the decision is asked for. {added, changed, removed, cluster_scoped,
-- rbac, sensitive, images, unreadable, truncated}; null until then (and for
-- deployments decided before this column existed).
alter table deployments add column change_summary jsonb;

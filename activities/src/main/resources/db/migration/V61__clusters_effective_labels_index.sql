-- The cluster list's ?label= filter (ClusterMapper.list) matches the effective labels, those the
-- agent reports merged with those set in the hub (the hub's winning, V57):
-- (reported_labels || labels) @> '{"team": "payments"}'. An index on labels alone cannot serve
-- that expression, so the filter read every cluster of the table. This one can; the query must
-- keep spelling the expression exactly like this for PostgreSQL to use it (ClusterLabelIndexIT).
-- jsonb_path_ops: the filter only ever uses @>.
create index clusters_effective_labels on clusters
    using gin ((reported_labels || labels) jsonb_path_ops);

-- Nothing filters on the hub's labels alone any more (V57 made every filter use the merged ones).
drop index clusters_labels;

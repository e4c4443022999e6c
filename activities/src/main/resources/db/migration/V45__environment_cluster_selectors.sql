-- Cluster label selectors for project environments (docs/delivery.md#cluster-selectors).
-- An environment binds clusters by name, by a Kubernetes label selector over the
-- clusters' labels, or both (the union). cluster_selector is the selector as JSON
-- ({"matchLabels": {...}, "matchExpressions": [...]}); null: none (binds by name
-- only); {} selects every registered cluster of the organization. Clusters the
-- selector binds are delivered to with selector_delivery_mode and no overrides.
alter table project_environments
    add column cluster_selector jsonb,
    add column selector_delivery_mode text not null default 'argocd'
        check (selector_delivery_mode in ('argocd', 'flux', 'direct'));
create index project_environments_selected on project_environments (org_id)
    where cluster_selector is not null;

-- Why a cluster is in an environment: named in it, matched by its selector, or
-- both. The selector's matches are kept here, as named clusters are, so the
-- configuration (and config/ in Git) changes, with a commit, exactly when a
-- cluster joins or leaves.
alter table project_environment_clusters
    add column by_name boolean not null default true,
    add column by_selector boolean not null default false,
    add constraint project_environment_clusters_bound check (by_name or by_selector);

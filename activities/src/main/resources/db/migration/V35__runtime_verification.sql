-- A deployment ends when the clusters run it: every cluster that delivers an environment through
-- Flux or Argo CD is watched until its adapter reports the deploy commit applied and healthy. An
-- environment with verify_timeout_s gives its clusters that long to do so; a deployment whose
-- cluster does not is 'degraded'. Null: the environment's deployments are not verified (opt-in
-- until the hub wires every binding's adapter itself).
alter table environments
    add column verify_timeout_s integer check (verify_timeout_s between 10 and 86400);

alter table deployments drop constraint deployments_status_check;
alter table deployments add constraint deployments_status_check
    check (status in ('pending', 'pending_approval', 'deploying', 'deployed', 'frozen', 'rejected',
                      'expired', 'cancelled', 'failed', 'degraded'));

-- What each watched cluster ran: the evidence of "what was approved is what runs".
create table deployment_clusters (
    org_id        uuid not null,
    deployment_id uuid not null,
    environment   text not null,
    cluster_id    uuid not null,
    cluster       text not null,
    mode          text not null check (mode in ('flux', 'argocd')),
    verified      boolean not null,
    deliverer     text not null default '',
    revision      text not null default '',
    health        text not null default '',
    reason        text not null default '',
    observed_at   timestamptz not null,
    verified_at   timestamptz,
    primary key (deployment_id, environment, cluster_id),
    foreign key (org_id, deployment_id) references deployments (org_id, id) on delete cascade
);
create index deployment_clusters_org on deployment_clusters (org_id, deployment_id);

-- Grants (issue 27, item 6): a team's role on a project, on every project, or on the clusters a
-- label selector matches. Owners and admins reach everything; a member or viewer reaches a
-- project or cluster only through a grant of one of their teams, with the grant's role there
-- (docs/policies.md#teams-and-grants).
create table grants (
    id          uuid not null,
    org_id      uuid not null references organizations (id),
    team_id     uuid not null,
    role        text not null check (role in ('viewer', 'member', 'admin')),
    -- 'project': the project project_id; 'projects': every project of the organization, present
    -- and future; 'clusters': the clusters the selector (a LabelSelector, {} = all) matches.
    scope       text not null check (scope in ('project', 'projects', 'clusters')),
    project_id  uuid,
    selector    jsonb,
    created_by  text not null,
    created_at  timestamptz not null,
    primary key (org_id, id),
    foreign key (org_id, team_id) references teams (org_id, id) on delete cascade,
    foreign key (org_id, project_id) references projects (org_id, id) on delete cascade,
    check ((scope = 'project') = (project_id is not null)),
    check ((scope = 'clusters') = (selector is not null))
);

create index grants_team on grants (org_id, team_id);
create index grants_project on grants (org_id, project_id);

-- No one loses access on the upgrade: every organization that has members gets a team
-- 'everyone' holding all its current members, with member on every project (present and
-- future) and on every cluster, so each member keeps what their organization role gave them
-- (a viewer stays a viewer: an organization viewer is read-only whatever a grant says, see
-- docs/policies.md#teams-and-grants). Admins narrow access by changing or deleting
-- these grants. Organizations created later start with no teams and no grants.
insert into teams (id, org_id, name, description, created_at)
select gen_random_uuid(), o.id, 'everyone',
       'Every member at the upgrade to grants; its grants keep the access members had before.', now()
  from organizations o
 where exists (select 1 from members m where m.org_id = o.id and m.removed_at is null)
on conflict (org_id, name) do nothing;

insert into team_members (org_id, team_id, member_id, source, created_at)
select m.org_id, t.id, m.id, 'manual', now()
  from members m
  join teams t on t.org_id = m.org_id and t.name = 'everyone'
 where m.removed_at is null
on conflict do nothing;

insert into grants (id, org_id, team_id, role, scope, project_id, selector, created_by, created_at)
select gen_random_uuid(), t.org_id, t.id, 'member', 'projects', null, null, 'migration', now()
  from teams t where t.name = 'everyone';

insert into grants (id, org_id, team_id, role, scope, project_id, selector, created_by, created_at)
select gen_random_uuid(), t.org_id, t.id, 'member', 'clusters', null, '{}'::jsonb, 'migration', now()
  from teams t where t.name = 'everyone';

-- Teams become objects of their organization (issue 27, item 6). Until now a member's teams were
-- tags (members.teams, V3) that approval policies could name as approvers. A team now has a row
-- of its own, and membership is a row per member: 'manual' memberships are set by admins (the
-- teams REST API, or teams on POST/PATCH /members), 'oidc' ones by the SSO group mapping at each
-- sign-in (which replaces the member's 'oidc' memberships and never touches the manual ones).
--
-- members.teams stays, now kept by the database as the sorted names of the member's teams, so
-- every reader of it (approval eligibility, approval policy team rules, the member views) keeps
-- working and resolves team names through team_members.
create table teams (
    id          uuid not null,
    org_id      uuid not null references organizations (id),
    name        text not null check (length(name) between 1 and 63),
    description text not null default '',
    created_at  timestamptz not null,
    primary key (org_id, id),
    unique (org_id, name)
);

create table team_members (
    org_id     uuid not null,
    team_id    uuid not null,
    member_id  uuid not null,
    source     text not null check (source in ('manual', 'oidc')),
    created_at timestamptz not null,
    primary key (org_id, team_id, member_id, source),
    foreign key (org_id, team_id) references teams (org_id, id) on delete cascade,
    foreign key (org_id, member_id) references members (org_id, id)
);

create index team_members_member on team_members (org_id, member_id);

-- The member's team names, as members.teams holds them.
create function refresh_member_teams(p_org uuid, p_member uuid) returns void
language sql as $$
    update members set teams = coalesce(
        (select array_agg(distinct t.name order by t.name)
           from team_members tm
           join teams t on t.org_id = tm.org_id and t.id = tm.team_id
          where tm.org_id = p_org and tm.member_id = p_member), '{}')
     where org_id = p_org and id = p_member;
$$;

create function team_members_changed() returns trigger
language plpgsql as $$
begin
    if tg_op = 'DELETE' then
        perform refresh_member_teams(old.org_id, old.member_id);
    else
        perform refresh_member_teams(new.org_id, new.member_id);
    end if;
    return null;
end;
$$;

create trigger team_members_refresh
    after insert or delete on team_members
    for each row execute function team_members_changed();

create function team_renamed() returns trigger
language plpgsql as $$
begin
    perform refresh_member_teams(tm.org_id, tm.member_id)
       from (select distinct org_id, member_id from team_members
              where org_id = new.org_id and team_id = new.id) tm;
    return null;
end;
$$;

create trigger teams_renamed
    after update of name on teams
    for each row execute function team_renamed();

-- Every tag a member had becomes a team, and the member its member. Members who sign in through
-- SSO had their teams set by the group mapping at each sign-in: theirs are 'oidc' memberships
-- (the next sign-in brings them up to date); everyone else's were set by an admin: 'manual'.
insert into teams (id, org_id, name, description, created_at)
select gen_random_uuid(), m.org_id, t.name, '', now()
  from members m, unnest(m.teams) as t(name)
 where m.removed_at is null
 group by m.org_id, t.name;

insert into team_members (org_id, team_id, member_id, source, created_at)
select distinct m.org_id, t.id, m.id,
       case when m.oidc_subject is not null then 'oidc' else 'manual' end, now()
  from members m
  cross join unnest(m.teams) as n(name)
  join teams t on t.org_id = m.org_id and t.name = n.name
 where m.removed_at is null;

-- A service account made by a service account (N2 of issue 26): the account that created it, so
-- that four eyes can walk the chain up to the member at its root. Every account on the way, its
-- creator and its owner stand behind a request the account makes, and none of them may approve it.
alter table service_accounts add column created_by_account uuid;
alter table service_accounts add constraint service_accounts_created_by_account_fk
    foreign key (org_id, created_by_account) references service_accounts (org_id, id);

-- Accounts made before this migration: the audit log names the service account that created
-- each one (service_account.created by a service_account actor).
update service_accounts s set created_by_account = a.actor_id::uuid
  from audit_log a
 where a.org_id = s.org_id
   and a.action = 'service_account.created'
   and a.actor_type = 'service_account'
   and a.target_type = 'service_account'
   and a.target_id = s.id::text
   and s.created_by is null
   and a.actor_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
   and exists (select 1 from service_accounts c where c.org_id = s.org_id and c.id = a.actor_id::uuid);

-- An account made by an account had no owner: it gets the nearest owner up its chain (the member
-- answerable for the account that made it), so every account is answerable to a member.
with recursive up (id, ancestor, depth) as (
    select s.id, s.created_by_account, 1 from service_accounts s
     where s.owner_member_id is null and s.created_by_account is not null
  union all
    select up.id, p.created_by_account, up.depth + 1
      from up join service_accounts p on p.id = up.ancestor
     where p.owner_member_id is null and p.created_by_account is not null and up.depth < 64
)
update service_accounts s set owner_member_id = (
    select coalesce(p.owner_member_id, p.created_by)
      from up join service_accounts p on p.id = up.ancestor
     where up.id = s.id and coalesce(p.owner_member_id, p.created_by) is not null
     order by up.depth limit 1)
 where s.owner_member_id is null and s.created_by_account is not null;

-- Approvals still open whose requester is an account of a chain: everyone up the chain stands
-- behind the request from now on.
with recursive chain (requester, account, depth) as (
    select s.id, s.id, 0 from service_accounts s where s.created_by_account is not null
  union all
    select chain.requester, p.created_by_account, chain.depth + 1
      from chain join service_accounts p on p.id = chain.account
     where p.created_by_account is not null and chain.depth < 64
),
behind (requester, who) as (
    select chain.requester, x.who
      from chain join service_accounts p on p.id = chain.account,
           lateral (values (p.created_by::text), (p.owner_member_id::text),
                           (case when chain.depth > 0 then p.id::text end)) x (who)
     where x.who is not null
)
update approvals a set requester_behind = array(
    select distinct w from (
        select unnest(a.requester_behind) w
        union select b.who from behind b where b.requester::text = a.requester_id) all_behind)
 where a.status = 'open'
   and exists (select 1 from behind b where b.requester::text = a.requester_id);

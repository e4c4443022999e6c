-- Every hub replica listens on 'gitopshq_agents' (api/.../gateway/AgentWakeups) and acts at once
-- for the agents whose streams it holds, instead of on its next 2-second sweep:
--   command:<org>:<cluster>  a command was parked for the cluster's agent: send it;
--   token:<org>:<cluster>    an agent token stopped working (revoked, superseded, expired, or
--                            deleted with its cluster): close the streams that use it.
-- The payload names ids only. Notifications go out when the transaction commits.
create function gitopshq_command_parked() returns trigger language plpgsql as $$
begin
  perform pg_notify('gitopshq_agents', 'command:' || new.org_id || ':' || new.cluster_id);
  return null;
end
$$;

create trigger commands_parked
  after update of dispatch_task_token on commands
  for each row when (new.dispatch_task_token is not null
                     and new.dispatch_task_token is distinct from old.dispatch_task_token)
  execute function gitopshq_command_parked();

create function gitopshq_agent_token_ended() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform pg_notify('gitopshq_agents', 'token:' || old.org_id || ':' || old.cluster_id);
  else
    perform pg_notify('gitopshq_agents', 'token:' || new.org_id || ':' || new.cluster_id);
  end if;
  return null;
end
$$;

create trigger cluster_tokens_ended
  after update of status on cluster_tokens
  for each row when (old.status = 'active' and new.status <> 'active')
  execute function gitopshq_agent_token_ended();

create trigger cluster_tokens_deleted
  after delete on cluster_tokens
  for each row execute function gitopshq_agent_token_ended();

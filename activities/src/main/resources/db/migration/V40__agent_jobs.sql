-- One outbox of jobs for agents (issue 25). Every piece of work the hub parks for a cluster's agent
-- and waits for an answer on (a command, a direct apply, ...) is a row here: the hub replica that
-- holds the agent's stream sends it, the replica that receives the answer records it in the row,
-- and one piece of code hands the recorded answer to Temporal (api/.../gateway/JobDispatcher).
-- The work's own data stays in its own table (commands, direct_applies); a job names it by `ref`.
create table agent_jobs (
    id            uuid primary key,
    org_id        uuid not null,
    cluster_id    uuid not null,
    -- The hub handler that builds the message and reads the answer (JobKind.name()).
    kind          text not null check (kind ~ '^[a-z][a-z0-9_]{0,39}$'),
    -- The id of the work in its own table, and the correlation id on the wire.
    ref           text not null check (length(ref) between 1 and 200),
    -- queued: waits for a stream; sent: a stream carried it (re-sent after a reconnect);
    -- reported: the answer is recorded and not yet handed to Temporal; completed: handed over (or
    -- nobody waits any more); cancelled: never sent.
    state         text not null check (state in ('queued', 'sent', 'reported', 'completed', 'cancelled')),
    -- How the recorded answer reaches Temporal: an activity's task token, or a signal to a workflow.
    -- Neither for a request the replica that parked it waits for (it reads the answer here).
    task_token    bytea,
    workflow_id   text check (length(workflow_id) <= 400),
    signal        text check (length(signal) <= 100),
    -- Not sent after this: the job is answered as expired by the hub.
    deadline      timestamptz,
    -- The message of a request built by whoever parked it (adapter wiring, reconcile, drift check),
    -- sealed with the hub's encryption key: it may carry deploy tokens. Null for kinds whose
    -- message is built from their own table when sent.
    payload       bytea check (length(payload) <= 33554432),
    -- The value handed to Temporal (JSON, as Temporal's JSON converter writes it).
    result        jsonb,
    -- How often a stream carried it, and how often handing its answer to Temporal failed.
    attempts      integer not null default 0,
    hand_overs    integer not null default 0,
    created_at    timestamptz not null,
    sent_at       timestamptz,
    reported_at   timestamptz,
    completed_at  timestamptz,
    updated_at    timestamptz not null,
    check ((workflow_id is null) = (signal is null)),
    unique (org_id, kind, ref),
    foreign key (org_id, cluster_id) references clusters (org_id, id) on delete cascade
);

create index agent_jobs_open on agent_jobs (org_id, cluster_id, created_at)
    where state in ('queued', 'sent', 'reported');
create index agent_jobs_deadline on agent_jobs (deadline) where state = 'queued';

-- Parked commands move over: version-2 workflows (empty token) wait for the 'reported' signal,
-- older ones for their execute activity's completion. A report recorded but not handed over yet
-- keeps its value, as ExecutionResult's JSON.
insert into agent_jobs (id, org_id, cluster_id, kind, ref, state, task_token, workflow_id, signal,
                        deadline, result, attempts, created_at, sent_at, reported_at, updated_at)
select gen_random_uuid(), c.org_id, c.cluster_id, 'command', c.id::text,
       case when c.output is not null then 'reported'
            when c.dispatched_at is null then 'queued' else 'sent' end,
       nullif(c.dispatch_task_token, ''::bytea),
       case when c.dispatch_task_token = ''::bytea then c.id::text end,
       case when c.dispatch_task_token = ''::bytea then 'reported' end,
       c.dispatch_deadline,
       case when c.output is not null then
           jsonb_build_object('success', c.error is null, 'output', c.output,
                              'error', coalesce(c.error, '')) end,
       case when c.dispatched_at is null then 0 else 1 end,
       c.created_at, c.dispatched_at,
       case when c.output is not null then c.updated_at end,
       c.updated_at
  from commands c
 where c.dispatch_task_token is not null;

-- Parked direct applies move over, waiting for their apply activity's completion.
insert into agent_jobs (id, org_id, cluster_id, kind, ref, state, task_token, deadline, attempts,
                        created_at, sent_at, updated_at)
select gen_random_uuid(), d.org_id, d.cluster_id, 'direct_apply', d.id,
       case when d.dispatched_at is null then 'queued' else 'sent' end,
       d.dispatch_task_token, d.dispatch_deadline,
       case when d.dispatched_at is null then 0 else 1 end,
       d.created_at, d.dispatched_at, coalesce(d.dispatched_at, d.created_at)
  from direct_applies d
 where d.dispatch_task_token is not null;

-- The outbox replaces the per-table parking: its triggers and task tokens go.
drop trigger commands_parked on commands;
drop trigger direct_applies_parked on direct_applies;
drop function gitopshq_command_parked();
drop index commands_dispatch;
drop index direct_applies_dispatch;
alter table commands drop column dispatch_task_token;
alter table direct_applies drop column dispatch_task_token;

-- A job queued (or queued again) wakes the replica holding the cluster's stream at commit (V24's
-- channel; the payload names ids only).
create function gitopshq_agent_job_queued() returns trigger language plpgsql as $$
begin
  perform pg_notify('gitopshq_agents', 'job:' || new.org_id || ':' || new.cluster_id);
  return null;
end
$$;

create trigger agent_jobs_queued
  after insert or update of state on agent_jobs
  for each row when (new.state = 'queued')
  execute function gitopshq_agent_job_queued();

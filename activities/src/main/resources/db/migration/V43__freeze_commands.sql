-- A freeze window may also cover commands: the command types it holds ('all' for every type; empty,
-- the default, for deployments only). A command a window covers ends 'frozen', as a deployment does.
alter table freeze_windows add column command_types text[] not null default '{}';

alter table commands drop constraint commands_status_check;
alter table commands add constraint commands_status_check
    check (status in ('pending', 'pending_approval', 'executing', 'completed', 'failed', 'rejected',
                      'expired', 'cancelled', 'frozen'));

-- Argo CD's hard refresh becomes a governed command type of its own.
alter table commands drop constraint commands_type_check;
alter table commands add constraint commands_type_check
    check (type in ('sync', 'refresh', 'rollback', 'restart', 'scale'));

-- The image-update webhook's deliveries seen inside the tolerance window: the same delivery id of
-- a project is accepted once (a replayed request is refused). Rows older than the window are
-- deleted as new deliveries arrive; the signed timestamp refuses anything older anyway.
create table webhook_deliveries (
    org_id       uuid not null references organizations (id),
    project_id   uuid not null references projects (id) on delete cascade,
    delivery_id  text not null,
    received_at  timestamptz not null,
    primary key (project_id, delivery_id)
);
create index webhook_deliveries_received on webhook_deliveries (project_id, received_at);

-- Token rotation: a pending agent token belongs to one rotation, so a retried
-- delivery can find (and replace) what an earlier attempt issued.
alter table cluster_tokens add column rotation_id uuid;
create unique index cluster_tokens_rotation on cluster_tokens (rotation_id) where rotation_id is not null;

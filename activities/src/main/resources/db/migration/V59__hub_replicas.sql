-- The hub replicas that serve hub.v1.HubPeer (api/.../hub/peer), with the address other replicas
-- reach them at. A replica that receives a request for an agent whose stream another replica holds
-- (clusters.connected_replica) forwards it there. Installation-wide, not an organization's data.
-- Each replica writes its row at start and every 30 s, and deletes it when it stops; a row not
-- seen for 90 s is ignored (its replica died).
create table hub_replicas (
    replica_id   text primary key,
    peer_address text not null,
    seen_at      timestamptz not null
);

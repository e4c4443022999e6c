package dev.gitopshq.activities.gateway;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/**
 * The hub replicas that serve peer calls ({@code hub_replicas}, V59): installation-wide rows, one
 * per replica. The one lookup by cluster names the organization.
 */
@Mapper
public interface HubPeerMapper {
  /** Writes (or refreshes) this replica's peer address. */
  @Insert(
      "insert into hub_replicas (replica_id, peer_address, seen_at) values (#{replica}, #{address},"
          + " #{now}) on conflict (replica_id) do update set peer_address = excluded.peer_address,"
          + " seen_at = excluded.seen_at")
  int advertise(
      @Param("replica") String replicaId,
      @Param("address") String peerAddress,
      @Param("now") Instant now);

  /** Forgets this replica (it stops). */
  @Delete("delete from hub_replicas where replica_id = #{replica}")
  int withdraw(@Param("replica") String replicaId);

  /**
   * The peer address of the other replica that holds the organization's cluster's stream, when one
   * does and was seen since {@code seenSince}.
   */
  @Select(
      "select r.peer_address from clusters c join hub_replicas r on r.replica_id ="
          + " c.connected_replica where c.org_id = #{orgId} and c.id = #{clusterId}"
          + " and r.replica_id <> #{self} and r.seen_at >= #{seenSince}")
  Optional<String> holderAddress(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("self") String selfReplicaId,
      @Param("seenSince") Instant seenSince);
}

package dev.gitopshq.activities.inventory;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** {@code cluster_resources} and {@code cluster_inventory}; every statement filters by org_id. */
@Mapper
public interface InventoryMapper {
  String COLUMNS =
      "org_id, cluster_id, uid, api_group, api_version, kind, namespace, name, labels, status,"
          + " health, created_at, resource_version, snapshot_id, updated_at";

  /** Inserts or replaces the rows (one statement); rows of other organizations' clusters fail. */
  @Insert({
    "<script>",
    "insert into cluster_resources (" + COLUMNS + ") values",
    "<foreach collection='rows' item='r' separator=','>",
    "(#{r.orgId}, #{r.clusterId}, #{r.uid}, #{r.apiGroup}, #{r.apiVersion}, #{r.kind},",
    " #{r.namespace}, #{r.name},",
    " #{r.labels,typeHandler=dev.gitopshq.activities.store.JsonMapTypeHandler}, #{r.status},",
    " #{r.health}, #{r.createdAt}, #{r.resourceVersion}, #{r.snapshotId}, #{r.updatedAt})",
    "</foreach>",
    " on conflict (cluster_id, uid) do update set api_group = excluded.api_group,",
    " api_version = excluded.api_version, kind = excluded.kind, namespace = excluded.namespace,",
    " name = excluded.name, labels = excluded.labels, status = excluded.status,",
    " health = excluded.health, created_at = excluded.created_at,",
    " resource_version = excluded.resource_version, snapshot_id = excluded.snapshot_id,",
    " updated_at = excluded.updated_at",
    " where cluster_resources.org_id = excluded.org_id",
    "</script>"
  })
  int upsert(@Param("rows") List<ResourceRow> rows);

  @Delete({
    "<script>",
    "delete from cluster_resources where org_id = #{orgId} and cluster_id = #{clusterId}",
    " and uid in <foreach collection='uids' item='u' open='(' separator=',' close=')'>#{u}</foreach>",
    "</script>"
  })
  int delete(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("uids") Collection<String> uids);

  /** Removes what the finished snapshot did not carry. */
  @Delete(
      "delete from cluster_resources where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and snapshot_id != #{snapshotId}")
  int deleteOutside(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("snapshotId") String snapshotId);

  @Insert(
      "insert into cluster_inventory (org_id, cluster_id, snapshot_id, snapshot_at, as_of, objects)"
          + " select #{orgId}, #{clusterId}, #{snapshotId}, #{at}, #{at},"
          + " (select count(*) from cluster_resources where org_id = #{orgId} and cluster_id = #{clusterId})"
          + " on conflict (cluster_id) do update set snapshot_id = excluded.snapshot_id,"
          + " snapshot_at = excluded.snapshot_at, as_of = excluded.as_of, objects = excluded.objects"
          + " where cluster_inventory.org_id = excluded.org_id")
  int finishSnapshot(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("snapshotId") String snapshotId,
      @Param("at") Instant at);

  /** After a delta: the new count and freshness. */
  @Update(
      "update cluster_inventory set as_of = greatest(as_of, #{at}), objects ="
          + " (select count(*) from cluster_resources where org_id = #{orgId} and cluster_id = #{clusterId})"
          + " where org_id = #{orgId} and cluster_id = #{clusterId}")
  int touched(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("at") Instant at);

  @Select(
      "select org_id, cluster_id, snapshot_id, snapshot_at, as_of, objects from cluster_inventory"
          + " where org_id = #{orgId} and cluster_id = #{clusterId}")
  Optional<InventoryRow> find(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  @Select(
      "select namespace, kind, count(*) as count from cluster_resources"
          + " where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " group by namespace, kind order by namespace, kind")
  List<KindCount> counts(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  @Select({
    "<script>",
    "select " + COLUMNS + " from cluster_resources",
    " where org_id = #{orgId} and cluster_id = #{clusterId}",
    "<if test='q.namespace != null'> and namespace = #{q.namespace}</if>",
    "<if test='q.kind != null'> and kind = #{q.kind}</if>",
    "<if test='q.labels != null and !q.labels.isEmpty()'>",
    " and labels @&gt; #{q.labels,typeHandler=dev.gitopshq.activities.store.JsonMapTypeHandler}",
    "</if>",
    "<if test='q.labelKey != null'> and jsonb_exists(labels, #{q.labelKey})</if>",
    "<if test='q.q != null'> and strpos(lower(name), lower(#{q.q})) &gt; 0</if>",
    "<if test='q.after != null'>",
    " and (namespace, kind, name, uid) &gt;",
    " (#{q.after.namespace}, #{q.after.kind}, #{q.after.name}, #{q.after.uid})",
    "</if>",
    " order by namespace, kind, name, uid limit #{q.limit}",
    "</script>"
  })
  List<ResourceRow> list(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("q") ResourceQuery q);
}

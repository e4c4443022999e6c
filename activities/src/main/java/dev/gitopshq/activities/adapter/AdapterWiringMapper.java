package dev.gitopshq.activities.adapter;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Adapter wiring: bindings, tokens and reports; every query is filtered by organization. */
@Mapper
public interface AdapterWiringMapper {
  /** {@code auto} or {@code manual}; empty when the cluster does not exist in the organization. */
  @Select("select adapter from clusters where org_id = #{orgId} and id = #{clusterId}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<String> adapterMode(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  @Update("update clusters set adapter = #{mode} where org_id = #{orgId} and id = #{clusterId}")
  int setAdapterMode(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("mode") String mode);

  /** The project environments the cluster delivers through Flux or Argo CD. */
  @Select(
      "select p.id as project_id, p.name as project, e.name as environment,"
          + " pc.delivery_mode as mode from project_environment_clusters pc"
          + " join projects p on p.org_id = pc.org_id and p.id = pc.project_id"
          + " join environments e on e.org_id = pc.org_id and e.id = pc.environment_id"
          + " where pc.org_id = #{orgId} and pc.cluster_id = #{clusterId}"
          + " and pc.delivery_mode in ('flux', 'argocd') order by p.name, e.position, e.name")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<AdapterBindingRow> bindings(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  /**
   * The clusters whose wiring a change to the project may change: those bound to it now, and those
   * wired for it before.
   */
  @Select(
      "select cluster_id from project_environment_clusters where org_id = #{orgId}"
          + " and project_id = #{projectId}"
          + " union select cluster_id from adapter_wirings where org_id = #{orgId}"
          + " and project_id = #{projectId}"
          + " union select cluster_id from adapter_tokens where org_id = #{orgId}"
          + " and project_id = #{projectId}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<UUID> clustersOf(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  @Select(
      "select w.org_id, w.cluster_id, w.project_id, p.name as project, w.environment, w.tenant,"
          + " w.adapter, w.outcome, w.message, w.objects::text as objects, w.updated_at"
          + " from adapter_wirings w join projects p on p.org_id = w.org_id and p.id = w.project_id"
          + " where w.org_id = #{orgId} and w.cluster_id = #{clusterId}"
          + " order by p.name, w.environment, w.tenant")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<AdapterWiringRow> wirings(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  @Delete("delete from adapter_wirings where org_id = #{orgId} and cluster_id = #{clusterId}")
  int clearWirings(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  @Insert(
      "insert into adapter_wirings (org_id, cluster_id, project_id, environment, tenant, adapter,"
          + " outcome, message, objects, updated_at) values (#{orgId}, #{clusterId}, #{projectId},"
          + " #{environment}, #{tenant}, #{adapter}, #{outcome}, #{message},"
          + " #{objects}::jsonb, #{updatedAt})")
  void insertWiring(AdapterWiringRow row);

  @Select(
      "select org_id, cluster_id, project_id, adapter, token_id, secret from adapter_tokens"
          + " where org_id = #{orgId} and cluster_id = #{clusterId} order by secret")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<AdapterTokenRow> tokens(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  @Insert(
      "insert into adapter_tokens (org_id, cluster_id, project_id, adapter, token_id, secret)"
          + " values (#{orgId}, #{clusterId}, #{projectId}, #{adapter}, #{tokenId}, #{secret})"
          + " on conflict (cluster_id, project_id, adapter) do update set"
          + " token_id = excluded.token_id, secret = excluded.secret"
          + " where adapter_tokens.org_id = excluded.org_id")
  void putToken(AdapterTokenRow row);

  @Delete(
      "delete from adapter_tokens where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and project_id = #{projectId} and adapter = #{adapter}")
  int deleteToken(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("projectId") UUID projectId,
      @Param("adapter") String adapter);
}

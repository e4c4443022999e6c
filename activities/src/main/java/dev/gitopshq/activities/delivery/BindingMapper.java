package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Kustomize and manifest bindings with their tenant-environment targets. */
@Mapper
public interface BindingMapper {
  String COLUMNS =
      "b.id, b.org_id, b.project_id, b.name, b.kind, b.source_id,"
          + " coalesce(mb.name, kb.name) as source, b.overlays, b.created_at, b.updated_at,"
          + " b.kind_scopes::text as kind_scopes";
  String FROM =
      " from bindings b left join manifest_bundles mb on b.kind = 'manifests'"
          + " and mb.org_id = b.org_id and mb.id = b.source_id"
          + " left join kustomize_bases kb on b.kind = 'kustomize'"
          + " and kb.org_id = b.org_id and kb.id = b.source_id";

  @Select(
      "select "
          + COLUMNS
          + FROM
          + " where b.org_id = #{orgId} and b.project_id = #{projectId} order by b.name")
  List<BindingRow> list(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  @Select(
      "select "
          + COLUMNS
          + FROM
          + " where b.org_id = #{orgId} and b.project_id = #{projectId} and b.name = #{name}")
  Optional<BindingRow> findByName(
      @Param("orgId") UUID orgId, @Param("projectId") UUID projectId, @Param("name") String name);

  @Insert(
      "insert into bindings (id, org_id, project_id, name, kind, source_id, overlays, created_at,"
          + " updated_at, kind_scopes) values (#{id}, #{orgId}, #{projectId}, #{name}, #{kind},"
          + " #{sourceId}, #{overlays}::jsonb, #{createdAt}, #{updatedAt},"
          + " coalesce(#{kindScopes}::jsonb, '{}'::jsonb))")
  void insert(BindingRow row);

  @Update(
      "update bindings set kind = #{kind}, source_id = #{sourceId}, overlays = #{overlays}::jsonb,"
          + " updated_at = #{now} where org_id = #{orgId} and id = #{id}")
  int update(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("kind") String kind,
      @Param("sourceId") UUID sourceId,
      @Param("overlays") String overlays,
      @Param("now") Instant now);

  /** Deletes the binding with its targets (foreign keys cascade). */
  @Delete("delete from bindings where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select(
      "select bt.org_id, bt.binding_id, bt.project_id, bt.tenant_id, t.name as tenant,"
          + " bt.environment_id, e.name as environment from binding_targets bt"
          + " join tenants t on t.org_id = bt.org_id and t.id = bt.tenant_id"
          + " join environments e on e.org_id = bt.org_id and e.id = bt.environment_id"
          + " where bt.org_id = #{orgId} and bt.project_id = #{projectId}"
          + " order by e.position, e.name, t.name")
  List<BindingTargetRow> targets(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  @Delete("delete from binding_targets where org_id = #{orgId} and binding_id = #{bindingId}")
  int deleteTargets(@Param("orgId") UUID orgId, @Param("bindingId") UUID bindingId);

  @Insert(
      "insert into binding_targets (org_id, binding_id, project_id, tenant_id, environment_id)"
          + " values (#{orgId}, #{bindingId}, #{projectId}, #{tenantId}, #{environmentId})")
  void insertTarget(
      @Param("orgId") UUID orgId,
      @Param("bindingId") UUID bindingId,
      @Param("projectId") UUID projectId,
      @Param("tenantId") UUID tenantId,
      @Param("environmentId") UUID environmentId);

  /** Sets the kind scopes a binding declares (a JSON object); returns the rows changed. */
  @Update(
      "update bindings set kind_scopes = #{scopes}::jsonb"
          + " where org_id = #{orgId} and project_id = #{projectId} and name = #{name}")
  int setKindScopes(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("name") String name,
      @Param("scopes") String scopes);
}

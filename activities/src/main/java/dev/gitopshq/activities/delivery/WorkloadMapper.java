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

/** Workloads and their tenant-environment values. */
@Mapper
public interface WorkloadMapper {
  String COLUMNS =
      "w.id, w.org_id, w.project_id, w.name, w.chart_id, c.name as chart, w.chart_version,"
          + " v.digest as chart_digest, w.values, w.image_tag_path, w.created_at, w.updated_at,"
          + " w.kind_scopes::text as kind_scopes";
  String FROM =
      " from workloads w join charts c on c.org_id = w.org_id and c.id = w.chart_id"
          + " join chart_versions v on v.chart_id = w.chart_id and v.version = w.chart_version";

  @Select(
      "select "
          + COLUMNS
          + FROM
          + " where w.org_id = #{orgId} and w.project_id = #{projectId} order by w.name")
  List<WorkloadRow> list(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  @Select(
      "select "
          + COLUMNS
          + FROM
          + " where w.org_id = #{orgId} and w.project_id = #{projectId} and w.name = #{name}")
  Optional<WorkloadRow> findByName(
      @Param("orgId") UUID orgId, @Param("projectId") UUID projectId, @Param("name") String name);

  @Insert(
      "insert into workloads (id, org_id, project_id, name, chart_id, chart_version, values,"
          + " image_tag_path, created_at, updated_at, kind_scopes) values (#{id}, #{orgId},"
          + " #{projectId}, #{name}, #{chartId}, #{chartVersion}, #{values}::jsonb,"
          + " #{imageTagPath}, #{createdAt}, #{updatedAt},"
          + " coalesce(#{kindScopes}::jsonb, '{}'::jsonb))")
  void insert(WorkloadRow row);

  @Update(
      "update workloads set chart_id = #{chartId}, chart_version = #{chartVersion},"
          + " values = #{values}::jsonb, image_tag_path = #{imageTagPath}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id}")
  int update(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("chartId") UUID chartId,
      @Param("chartVersion") String chartVersion,
      @Param("values") String values,
      @Param("imageTagPath") String imageTagPath,
      @Param("now") Instant now);

  /** Deletes the workload with its values (foreign keys cascade). */
  @Delete("delete from workloads where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  String VALUE_COLUMNS =
      "tv.org_id, tv.project_id, tv.workload_id, w.name as workload, tv.tenant_id,"
          + " t.name as tenant, tv.environment_id, e.name as environment, tv.values,"
          + " tv.updated_by, tv.updated_at";
  String VALUE_FROM =
      " from tenant_values tv join workloads w on w.org_id = tv.org_id and w.id = tv.workload_id"
          + " join tenants t on t.org_id = tv.org_id and t.id = tv.tenant_id"
          + " join environments e on e.org_id = tv.org_id and e.id = tv.environment_id";

  @Select(
      "select "
          + VALUE_COLUMNS
          + VALUE_FROM
          + " where tv.org_id = #{orgId} and tv.project_id = #{projectId}"
          + " order by w.name, t.name, e.position, e.name")
  List<TenantValuesRow> values(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  @Select(
      "select "
          + VALUE_COLUMNS
          + VALUE_FROM
          + " where tv.org_id = #{orgId} and tv.workload_id = #{workloadId}"
          + " and tv.tenant_id = #{tenantId} and tv.environment_id = #{environmentId}")
  Optional<TenantValuesRow> findValues(
      @Param("orgId") UUID orgId,
      @Param("workloadId") UUID workloadId,
      @Param("tenantId") UUID tenantId,
      @Param("environmentId") UUID environmentId);

  @Insert(
      "insert into tenant_values (org_id, project_id, workload_id, tenant_id, environment_id,"
          + " values, updated_by, updated_at) values (#{orgId}, #{projectId}, #{workloadId},"
          + " #{tenantId}, #{environmentId}, #{values}::jsonb, #{updatedBy}, #{now})"
          + " on conflict (workload_id, tenant_id, environment_id) do update"
          + " set values = excluded.values, updated_by = excluded.updated_by,"
          + " updated_at = excluded.updated_at")
  int upsertValues(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("workloadId") UUID workloadId,
      @Param("tenantId") UUID tenantId,
      @Param("environmentId") UUID environmentId,
      @Param("values") String values,
      @Param("updatedBy") String updatedBy,
      @Param("now") Instant now);

  @Delete(
      "delete from tenant_values where org_id = #{orgId} and workload_id = #{workloadId}"
          + " and tenant_id = #{tenantId} and environment_id = #{environmentId}")
  int deleteValues(
      @Param("orgId") UUID orgId,
      @Param("workloadId") UUID workloadId,
      @Param("tenantId") UUID tenantId,
      @Param("environmentId") UUID environmentId);

  /** Sets the kind scopes a workload declares (a JSON object); returns the rows changed. */
  @Update(
      "update workloads set kind_scopes = #{scopes}::jsonb"
          + " where org_id = #{orgId} and project_id = #{projectId} and name = #{name}")
  int setKindScopes(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("name") String name,
      @Param("scopes") String scopes);
}

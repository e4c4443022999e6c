package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** HQ variables, organization- and project-scoped. */
@Mapper
public interface VariableMapper {
  String COLUMNS =
      "v.id, v.org_id, v.scope, v.project_id, v.environment_id, e.name as environment,"
          + " v.tenant_id, t.name as tenant, v.service, v.key, v.value, v.updated_by, v.updated_at";
  String FROM =
      " from variables v left join environments e on e.org_id = v.org_id and e.id = v.environment_id"
          + " left join tenants t on t.org_id = v.org_id and t.id = v.tenant_id";
  String ORDER =
      " order by array_position(array['org','project','environment','tenant','service'], v.scope),"
          + " v.key, e.name nulls first, t.name nulls first, v.service nulls first";

  @Select("select " + COLUMNS + FROM + " where v.org_id = #{orgId} and v.scope = 'org'" + ORDER)
  List<VariableRow> listOrg(@Param("orgId") UUID orgId);

  @Select(
      "select "
          + COLUMNS
          + FROM
          + " where v.org_id = #{orgId} and v.project_id = #{projectId}"
          + ORDER)
  List<VariableRow> listProject(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  /** Sets a variable: one per scope, scoped thing and key. Returns 1 when a value was written. */
  @Insert(
      "insert into variables (id, org_id, scope, project_id, environment_id, tenant_id, service,"
          + " key, value, updated_by, updated_at) values (#{id}, #{orgId}, #{scope}, #{projectId},"
          + " #{environmentId}, #{tenantId}, #{service}, #{key}, #{value}, #{updatedBy}, #{now})"
          + " on conflict (org_id, scope, project_id, environment_id, tenant_id, service, key)"
          + " do update set value = excluded.value, updated_by = excluded.updated_by,"
          + " updated_at = excluded.updated_at where variables.value is distinct from excluded.value")
  int upsert(
      @Param("id") UUID id,
      @Param("orgId") UUID orgId,
      @Param("scope") String scope,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("tenantId") UUID tenantId,
      @Param("service") String service,
      @Param("key") String key,
      @Param("value") String value,
      @Param("updatedBy") String updatedBy,
      @Param("now") Instant now);

  @Delete(
      "delete from variables where org_id = #{orgId} and scope = #{scope}"
          + " and project_id is not distinct from #{projectId}::uuid"
          + " and environment_id is not distinct from #{environmentId}::uuid"
          + " and tenant_id is not distinct from #{tenantId}::uuid"
          + " and service is not distinct from #{service}::text and key = #{key}")
  int delete(
      @Param("orgId") UUID orgId,
      @Param("scope") String scope,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("tenantId") UUID tenantId,
      @Param("service") String service,
      @Param("key") String key);

  /** Drops the project's variables scoped to an environment it no longer delivers to. */
  @Delete(
      "delete from variables where org_id = #{orgId} and project_id = #{projectId}"
          + " and environment_id = #{environmentId}")
  int deleteForEnvironment(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId);

  /** Drops the project's variables scoped to a tenant it no longer serves. */
  @Delete(
      "delete from variables where org_id = #{orgId} and project_id = #{projectId}"
          + " and tenant_id = #{tenantId}")
  int deleteForTenant(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("tenantId") UUID tenantId);
}

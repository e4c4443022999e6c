package dev.gitopshq.activities.delivery;

import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** Organization tenants linked to projects. */
@Mapper
public interface ProjectTenantMapper {
  @Select(
      "select pt.org_id, pt.project_id, pt.tenant_id, t.name as tenant from project_tenants pt"
          + " join tenants t on t.org_id = pt.org_id and t.id = pt.tenant_id"
          + " where pt.org_id = #{orgId} and pt.project_id = #{projectId} order by t.name")
  List<ProjectTenantRow> list(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  /** Links the tenant; returns 0 when it was linked already. */
  @Insert(
      "insert into project_tenants (org_id, project_id, tenant_id)"
          + " values (#{orgId}, #{projectId}, #{tenantId}) on conflict do nothing")
  int insert(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("tenantId") UUID tenantId);

  /** Unlinks it with its values and binding targets (foreign keys cascade). */
  @Delete(
      "delete from project_tenants"
          + " where org_id = #{orgId} and project_id = #{projectId} and tenant_id = #{tenantId}")
  int delete(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("tenantId") UUID tenantId);
}

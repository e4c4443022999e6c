package dev.gitopshq.activities.delivery;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Organization tenants. */
@Mapper
public interface TenantMapper {
  String COLUMNS = "id, org_id, name, display_name, labels, created_at";

  @Select("select " + COLUMNS + " from tenants where org_id = #{orgId} order by name")
  List<TenantRow> list(@Param("orgId") UUID orgId);

  @Select("select " + COLUMNS + " from tenants where org_id = #{orgId} and name = #{name}")
  Optional<TenantRow> findByName(@Param("orgId") UUID orgId, @Param("name") String name);

  @Insert(
      "insert into tenants (id, org_id, name, display_name, labels, created_at)"
          + " values (#{id}, #{orgId}, #{name}, #{displayName},"
          + " #{labels,typeHandler=dev.gitopshq.activities.store.JsonMapTypeHandler}, #{createdAt})")
  void insert(TenantRow row);

  @Update(
      "update tenants set display_name = #{displayName},"
          + " labels = #{labels,typeHandler=dev.gitopshq.activities.store.JsonMapTypeHandler}"
          + " where org_id = #{orgId} and id = #{id}")
  int update(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("displayName") String displayName,
      @Param("labels") Map<String, String> labels);

  @Delete("delete from tenants where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Names of the projects the tenant is linked to. */
  @Select(
      "select p.name from project_tenants pt join projects p"
          + " on p.org_id = pt.org_id and p.id = pt.project_id"
          + " where pt.org_id = #{orgId} and pt.tenant_id = #{id} order by p.name")
  List<String> projectsLinked(@Param("orgId") UUID orgId, @Param("id") UUID id);
}

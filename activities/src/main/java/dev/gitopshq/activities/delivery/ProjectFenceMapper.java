package dev.gitopshq.activities.delivery;

import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** The fences of projects ({@code project_fences}); every query is filtered by organization. */
@Mapper
public interface ProjectFenceMapper {
  String LIST = "dev.gitopshq.activities.store.StringListTypeHandler";

  @Select(
      "select org_id, project_id, allowed_namespaces, cluster_scoped_kinds, denied_kinds,"
          + " updated_by, updated_at from project_fences"
          + " where org_id = #{orgId} and project_id = #{projectId}")
  Optional<ProjectFenceRow> find(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  /** Creates or replaces the project's fence. */
  @Insert(
      "insert into project_fences (org_id, project_id, allowed_namespaces, cluster_scoped_kinds,"
          + " denied_kinds, updated_by, updated_at) values (#{orgId}, #{projectId},"
          + " #{allowedNamespaces,typeHandler="
          + LIST
          + "}, #{clusterScopedKinds,typeHandler="
          + LIST
          + "}, #{deniedKinds,typeHandler="
          + LIST
          + "}, #{updatedBy}, #{updatedAt})"
          + " on conflict (org_id, project_id) do update set"
          + " allowed_namespaces = excluded.allowed_namespaces,"
          + " cluster_scoped_kinds = excluded.cluster_scoped_kinds,"
          + " denied_kinds = excluded.denied_kinds, updated_by = excluded.updated_by,"
          + " updated_at = excluded.updated_at")
  void upsert(ProjectFenceRow row);

  /** Back to the default fence; returns the rows removed. */
  @Delete("delete from project_fences where org_id = #{orgId} and project_id = #{projectId}")
  int delete(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);
}

package dev.gitopshq.activities.identity;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** Grants: a team's role on a project, on every project, or on clusters by label selector. */
@Mapper
public interface GrantMapper {
  String COLUMNS =
      "g.id, g.org_id, g.team_id, t.name as team_name, g.role, g.scope, g.project_id,"
          + " g.selector::text as selector_json, g.created_by, g.created_at";

  String FROM = " from grants g join teams t on t.org_id = g.org_id and t.id = g.team_id";

  @Insert(
      "insert into grants (id, org_id, team_id, role, scope, project_id, selector, created_by,"
          + " created_at) values (#{id}, #{orgId}, #{teamId}, #{role}, #{scope}, #{projectId},"
          + " cast(#{selectorJson,jdbcType=VARCHAR} as jsonb), #{createdBy}, #{createdAt})")
  void insert(GrantRow row);

  @Delete("delete from grants where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select("select " + COLUMNS + FROM + " where g.org_id = #{orgId} and g.id = #{id}")
  Optional<GrantRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Every grant of the organization, or of one team, or on one project (null = any). */
  @Select(
      "<script>select "
          + COLUMNS
          + FROM
          + " where g.org_id = #{orgId}"
          + "<if test='teamId != null'> and g.team_id = #{teamId}</if>"
          + "<if test='projectId != null'> and g.project_id = #{projectId}</if>"
          + " order by t.name, g.scope, g.created_at</script>")
  List<GrantRow> list(
      @Param("orgId") UUID orgId, @Param("teamId") UUID teamId, @Param("projectId") UUID projectId);

  /** The grants of every team the member is in (by hand or by SSO). */
  @Select(
      "select distinct "
          + COLUMNS
          + FROM
          + " join team_members tm on tm.org_id = g.org_id and tm.team_id = g.team_id"
          + " where g.org_id = #{orgId} and tm.member_id = #{memberId}")
  List<GrantRow> ofMember(@Param("orgId") UUID orgId, @Param("memberId") UUID memberId);
}

package dev.gitopshq.activities.policy;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/**
 * Freeze windows of an organization, with the names of their environment and project (windows are
 * stored by id, so renaming an environment keeps its windows). Every statement filters by {@code
 * org_id}.
 */
@Mapper
public interface FreezeWindowMapper {
  String SELECT =
      "select f.id, f.org_id, f.environment_id, e.name as environment, f.project_id,"
          + " p.name as project, f.starts_at, f.ends_at, f.reason, f.created_by, f.created_at,"
          + " f.command_types"
          + " from freeze_windows f"
          + " left join environments e on e.org_id = f.org_id and e.id = f.environment_id"
          + " left join projects p on p.org_id = f.org_id and p.id = f.project_id";

  String ORDER = " order by f.starts_at, f.ends_at, f.id";

  @Select(SELECT + " where f.org_id = #{orgId}" + ORDER)
  List<FreezeWindowRow> list(@Param("orgId") UUID orgId);

  /** The windows covering {@code at}: {@code starts_at <= at < ends_at}. */
  @Select(
      SELECT + " where f.org_id = #{orgId} and f.starts_at <= #{at} and f.ends_at > #{at}" + ORDER)
  List<FreezeWindowRow> listCovering(@Param("orgId") UUID orgId, @Param("at") Instant at);

  /** The windows not covering {@code at}: ended or not started yet. */
  @Select(
      SELECT + " where f.org_id = #{orgId} and (f.starts_at > #{at} or f.ends_at <= #{at})" + ORDER)
  List<FreezeWindowRow> listNotCovering(@Param("orgId") UUID orgId, @Param("at") Instant at);

  @Select(SELECT + " where f.org_id = #{orgId} and f.id = #{id}")
  Optional<FreezeWindowRow> find(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Stores a window; its {@code environment} and {@code project} names are not stored. */
  @Insert(
      "insert into freeze_windows (id, org_id, environment_id, project_id, starts_at, ends_at,"
          + " reason, created_by, created_at, command_types) values (#{id}, #{orgId},"
          + " #{environmentId}, #{projectId}, #{startsAt}, #{endsAt}, #{reason}, #{createdBy},"
          + " #{createdAt},"
          + " #{commandTypes,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler})")
  void insert(FreezeWindowRow row);

  @Delete("delete from freeze_windows where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** The id of the organization's environment with that name. */
  @Select("select id from environments where org_id = #{orgId} and name = #{name}")
  Optional<UUID> environmentId(@Param("orgId") UUID orgId, @Param("name") String name);

  /** The id of the organization's project with that name. */
  @Select("select id from projects where org_id = #{orgId} and name = #{name}")
  Optional<UUID> projectId(@Param("orgId") UUID orgId, @Param("name") String name);
}

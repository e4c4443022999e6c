package dev.gitopshq.activities.delivery;

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

/** Organization environments, in their order. */
@Mapper
public interface EnvironmentMapper {
  String COLUMNS =
      "id, org_id, name, position, description, created_at,"
          + " verify_timeout_s as verify_timeout_seconds";

  @Select(
      "select " + COLUMNS + " from environments where org_id = #{orgId} order by position, name")
  List<EnvironmentRow> list(@Param("orgId") UUID orgId);

  @Select("select " + COLUMNS + " from environments where org_id = #{orgId} and name = #{name}")
  Optional<EnvironmentRow> findByName(@Param("orgId") UUID orgId, @Param("name") String name);

  /** Serializes changes to the order: every writer of positions takes this lock first. */
  @Select("select 1 from pg_advisory_xact_lock(7002, hashtext(#{orgId}::text))")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  int lockOrder(@Param("orgId") UUID orgId);

  @Insert(
      "insert into environments (id, org_id, name, position, description, created_at,"
          + " verify_timeout_s) values (#{id}, #{orgId}, #{name}, #{position}, #{description},"
          + " #{createdAt}, #{verifyTimeoutSeconds})")
  void insert(EnvironmentRow row);

  /** Makes room at {@code position}: every environment at or after it moves one down. */
  @Update(
      "update environments set position = position + 1"
          + " where org_id = #{orgId} and position >= #{position}")
  int shiftFrom(@Param("orgId") UUID orgId, @Param("position") int position);

  @Update("update environments set position = #{position} where org_id = #{orgId} and id = #{id}")
  int setPosition(
      @Param("orgId") UUID orgId, @Param("id") UUID id, @Param("position") int position);

  @Update(
      "update environments set description = #{description} where org_id = #{orgId} and id = #{id}")
  int setDescription(
      @Param("orgId") UUID orgId, @Param("id") UUID id, @Param("description") String description);

  @Update(
      "update environments set verify_timeout_s = #{seconds} where org_id = #{orgId} and id = #{id}")
  int setVerifyTimeout(
      @Param("orgId") UUID orgId, @Param("id") UUID id, @Param("seconds") Integer seconds);

  @Delete("delete from environments where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Names of the projects that deliver to this environment. */
  @Select(
      "select p.name from project_environments pe join projects p"
          + " on p.org_id = pe.org_id and p.id = pe.project_id"
          + " where pe.org_id = #{orgId} and pe.environment_id = #{id} order by p.name")
  List<String> projectsUsing(@Param("orgId") UUID orgId, @Param("id") UUID id);
}

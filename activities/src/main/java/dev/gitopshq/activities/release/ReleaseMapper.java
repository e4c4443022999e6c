package dev.gitopshq.activities.release;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Releases, and the generations a release's source is resolved from. */
@Mapper
public interface ReleaseMapper {
  String COLUMNS =
      "id, org_id, project_id, number, kind, description, config_revision, source_commit,"
          + " rollback_of, scope::text as scope, requested_by, requester_name, created_at";

  @Insert(
      "insert into releases (id, org_id, project_id, number, kind, description, config_revision,"
          + " source_commit, rollback_of, scope, requested_by, requester_name, created_at)"
          + " values (#{id}, #{orgId}, #{projectId}, #{number}, #{kind}, #{description},"
          + " #{configRevision}, #{sourceCommit}, #{rollbackOf}, #{scope}::jsonb, #{requestedBy},"
          + " #{requesterName}, #{createdAt})")
  void insert(ReleaseRow row);

  @Select("select " + COLUMNS + " from releases where org_id = #{orgId} and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<ReleaseRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select(
      "select "
          + COLUMNS
          + " from releases"
          + " where org_id = #{orgId} and project_id = #{projectId} and number = #{number}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<ReleaseRow> findByNumber(
      @Param("orgId") UUID orgId, @Param("projectId") UUID projectId, @Param("number") int number);

  /** The project's releases, newest first. */
  @Select(
      "select "
          + COLUMNS
          + " from releases where org_id = #{orgId} and project_id = #{projectId}"
          + " order by number desc limit #{limit}")
  List<ReleaseRow> list(
      @Param("orgId") UUID orgId, @Param("projectId") UUID projectId, @Param("limit") int limit);

  @Select(
      "select coalesce(max(number), 0) + 1 from releases"
          + " where org_id = #{orgId} and project_id = #{projectId}")
  int nextNumber(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  /** The newest standard release numbered below {@code number} (any when number is null). */
  @Select({
    "<script>",
    "select " + COLUMNS + " from releases where org_id = #{orgId} and project_id = #{projectId}",
    " and kind = 'standard'",
    "<if test='number != null'> and number &lt; #{number}</if>",
    " order by number desc limit 1",
    "</script>"
  })
  Optional<ReleaseRow> previousStandard(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("number") Integer number);

  /** Records the resolved source, once: a later retry keeps the first commit. */
  @Update(
      "update releases set source_commit = coalesce(source_commit, #{commit})"
          + " where org_id = #{orgId} and id = #{id}")
  int setSourceCommit(
      @Param("orgId") UUID orgId, @Param("id") UUID id, @Param("commit") String commit);

  /** The project's generations of revision {@code revision} and later, oldest revision first. */
  @Select(
      "select revision, status, commit, config_commit, detail from generations"
          + " where org_id = #{orgId} and project_id = #{projectId} and revision >= #{revision}"
          + " order by revision")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<GenerationStateRow> generationsFrom(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("revision") long revision);

  /** The newest revision of the project whose delivery has been generated. */
  @Select("select generated_revision from projects where org_id = #{orgId} and id = #{projectId}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<Long> generatedRevision(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);
}

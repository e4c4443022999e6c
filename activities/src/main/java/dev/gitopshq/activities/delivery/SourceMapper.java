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

/**
 * Manifest bundles and Kustomize bases (the same shape in two tables; {@code kind.table} is a
 * constant of {@link SourceKind}, never user input).
 */
@Mapper
public interface SourceMapper {
  String COLUMNS =
      "id, org_id, name, description, files, revision, updated_by, created_at, updated_at";

  @Select("select " + COLUMNS + " from ${kind.table} where org_id = #{orgId} order by name")
  List<SourceRow> list(@Param("kind") SourceKind kind, @Param("orgId") UUID orgId);

  @Select("select " + COLUMNS + " from ${kind.table} where org_id = #{orgId} and name = #{name}")
  Optional<SourceRow> findByName(
      @Param("kind") SourceKind kind, @Param("orgId") UUID orgId, @Param("name") String name);

  @Select("select " + COLUMNS + " from ${kind.table} where org_id = #{orgId} and id = #{id}")
  Optional<SourceRow> findById(
      @Param("kind") SourceKind kind, @Param("orgId") UUID orgId, @Param("id") UUID id);

  @Insert(
      "insert into ${kind.table} (id, org_id, name, description, files, revision, updated_by,"
          + " created_at, updated_at) values (#{row.id}, #{row.orgId}, #{row.name},"
          + " #{row.description}, #{row.files}::jsonb, 1, #{row.updatedBy}, #{row.createdAt},"
          + " #{row.updatedAt})")
  void insert(@Param("kind") SourceKind kind, @Param("row") SourceRow row);

  @Update(
      "update ${kind.table} set description = #{description}, files = #{files}::jsonb,"
          + " revision = #{revision}, updated_by = #{updatedBy}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id}")
  int update(
      @Param("kind") SourceKind kind,
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("description") String description,
      @Param("files") String files,
      @Param("revision") int revision,
      @Param("updatedBy") String updatedBy,
      @Param("now") Instant now);

  @Delete("delete from ${kind.table} where org_id = #{orgId} and id = #{id}")
  int delete(@Param("kind") SourceKind kind, @Param("orgId") UUID orgId, @Param("id") UUID id);

  /** "project/binding" of every binding that applies this source. */
  @Select(
      "select p.name || '/' || b.name from bindings b join projects p"
          + " on p.org_id = b.org_id and p.id = b.project_id"
          + " where b.org_id = #{orgId} and b.kind = #{kind.bindingKind} and b.source_id = #{id}"
          + " order by 1")
  List<String> bindingsUsing(
      @Param("kind") SourceKind kind, @Param("orgId") UUID orgId, @Param("id") UUID id);
}

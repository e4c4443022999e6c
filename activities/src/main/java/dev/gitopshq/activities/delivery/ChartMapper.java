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

/** The Helm chart registry: charts and their immutable versions. */
@Mapper
public interface ChartMapper {
  String VERSION_COLUMNS =
      "v.org_id, v.chart_id, c.name as chart, v.version, v.app_version, v.description, v.digest,"
          + " v.size_bytes, v.uploaded_by, v.created_at";

  @Select(
      "select id, org_id, name, description, created_at from charts where org_id = #{orgId}"
          + " order by name")
  List<ChartRow> list(@Param("orgId") UUID orgId);

  @Select(
      "select id, org_id, name, description, created_at from charts"
          + " where org_id = #{orgId} and name = #{name}")
  Optional<ChartRow> findByName(@Param("orgId") UUID orgId, @Param("name") String name);

  /** Creates the chart unless it exists; returns 0 when it did. */
  @Insert(
      "insert into charts (id, org_id, name, description, created_at)"
          + " values (#{id}, #{orgId}, #{name}, #{description}, #{createdAt})"
          + " on conflict (org_id, name) do nothing")
  int insertIfAbsent(ChartRow row);

  @Update("update charts set description = #{description} where org_id = #{orgId} and id = #{id}")
  int setDescription(
      @Param("orgId") UUID orgId, @Param("id") UUID id, @Param("description") String description);

  @Delete("delete from charts where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Every version of every chart of the organization. */
  @Select(
      "select "
          + VERSION_COLUMNS
          + " from chart_versions v join charts c"
          + " on c.org_id = v.org_id and c.id = v.chart_id where v.org_id = #{orgId}"
          + " order by c.name, v.created_at desc")
  List<ChartVersionRow> allVersions(@Param("orgId") UUID orgId);

  @Select(
      "select "
          + VERSION_COLUMNS
          + " from chart_versions v join charts c"
          + " on c.org_id = v.org_id and c.id = v.chart_id"
          + " where v.org_id = #{orgId} and v.chart_id = #{chartId} order by v.created_at desc")
  List<ChartVersionRow> versions(@Param("orgId") UUID orgId, @Param("chartId") UUID chartId);

  @Select(
      "select "
          + VERSION_COLUMNS
          + " from chart_versions v join charts c"
          + " on c.org_id = v.org_id and c.id = v.chart_id"
          + " where v.org_id = #{orgId} and v.chart_id = #{chartId} and v.version = #{version}")
  Optional<ChartVersionRow> findVersion(
      @Param("orgId") UUID orgId, @Param("chartId") UUID chartId, @Param("version") String version);

  @Insert(
      "insert into chart_versions (org_id, chart_id, version, app_version, description, digest,"
          + " size_bytes, archive, uploaded_by, created_at)"
          + " values (#{orgId}, #{chartId}, #{version}, #{appVersion}, #{description}, #{digest},"
          + " #{sizeBytes}, #{archive}, #{uploadedBy}, #{createdAt})"
          + " on conflict (chart_id, version) do nothing")
  int insertVersion(
      @Param("orgId") UUID orgId,
      @Param("chartId") UUID chartId,
      @Param("version") String version,
      @Param("appVersion") String appVersion,
      @Param("description") String description,
      @Param("digest") String digest,
      @Param("sizeBytes") int sizeBytes,
      @Param("archive") byte[] archive,
      @Param("uploadedBy") String uploadedBy,
      @Param("createdAt") Instant createdAt);

  @Select(
      "select digest, archive from chart_versions"
          + " where org_id = #{orgId} and chart_id = #{chartId} and version = #{version}")
  Optional<ChartArchiveRow> archive(
      @Param("orgId") UUID orgId, @Param("chartId") UUID chartId, @Param("version") String version);

  /** An archive by its SHA-256 (what a snapshot's workload names). */
  @Select(
      "select digest, archive from chart_versions where org_id = #{orgId} and digest = #{digest}"
          + " limit 1")
  Optional<ChartArchiveRow> archiveByDigest(
      @Param("orgId") UUID orgId, @Param("digest") String digest);

  @Delete(
      "delete from chart_versions"
          + " where org_id = #{orgId} and chart_id = #{chartId} and version = #{version}")
  int deleteVersion(
      @Param("orgId") UUID orgId, @Param("chartId") UUID chartId, @Param("version") String version);

  /** "project/workload" of every workload on this chart version. */
  @Select(
      "select p.name || '/' || w.name from workloads w join projects p"
          + " on p.org_id = w.org_id and p.id = w.project_id"
          + " where w.org_id = #{orgId} and w.chart_id = #{chartId} and w.chart_version = #{version}"
          + " order by 1")
  List<String> workloadsUsing(
      @Param("orgId") UUID orgId, @Param("chartId") UUID chartId, @Param("version") String version);
}

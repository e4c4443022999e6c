package dev.gitopshq.activities.generation;

import java.time.Instant;
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

/** Generations, their units, the project's revision counters and the generated deliveries. */
@Mapper
public interface GenerationMapper {
  String COLUMNS =
      "id, org_id, project_id, revision, config_commit, status, units, batches, changed_paths,"
          + " commit, trigger, actor, detail, started_at, finished_at, rendered_units, reused_units";

  /** The project's name and revisions, locked until the transaction ends. */
  record ProjectRevisions(String name, long configRevision, long generatedRevision) {}

  @Select(
      "select name, config_revision, generated_revision from projects"
          + " where org_id = #{orgId} and id = #{projectId} for update")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<ProjectRevisions> lockProject(
      @Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  @Update(
      "update projects set generated_revision = greatest(generated_revision, #{revision})"
          + " where org_id = #{orgId} and id = #{projectId}")
  int markGenerated(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("revision") long revision);

  /** A project whose newest configuration revision has no generation yet. */
  record Pending(UUID orgId, UUID projectId, long revision) {}

  /**
   * Projects, across organizations, whose newest revision was never planned: their generation did
   * not start (Temporal was unreachable after the change was committed). The catch-up sweep reads
   * this on behalf of every organization, as the hub's other sweeps do.
   */
  @Select(
      "select p.org_id, p.id as project_id, p.config_revision as revision from projects p"
          + " where p.generated_revision < p.config_revision and p.updated_at < #{before}"
          + " and not exists (select 1 from generations g where g.org_id = p.org_id"
          + " and g.project_id = p.id and g.revision = p.config_revision)"
          + " order by p.updated_at limit #{limit}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<Pending> ungenerated(@Param("before") Instant before, @Param("limit") int limit);

  /** Removes a failed generation (and its units), so its revision can be generated again. */
  @Delete("delete from generations where org_id = #{orgId} and id = #{id} and status = 'failed'")
  int deleteFailed(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Insert(
      "insert into generations (id, org_id, project_id, revision, config_commit, status, units,"
          + " batches, trigger, actor, detail, started_at, finished_at, rendered_units, reused_units)"
          + " values (#{id}, #{orgId}, #{projectId}, #{revision}, #{configCommit}, #{status},"
          + " #{units}, #{batches}, #{trigger}, #{actor}, #{detail}, #{startedAt}, #{finishedAt},"
          + " #{renderedUnits}, #{reusedUnits})")
  void insert(GenerationRow row);

  @Select("select " + COLUMNS + " from generations where org_id = #{orgId} and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<GenerationRow> find(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select(
      "select "
          + COLUMNS
          + " from generations"
          + " where org_id = #{orgId} and project_id = #{projectId} and revision = #{revision}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<GenerationRow> findByRevision(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("revision") long revision);

  @Select(
      "select "
          + COLUMNS
          + " from generations where org_id = #{orgId} and project_id = #{projectId}"
          + " order by revision desc limit #{limit}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<GenerationRow> list(
      @Param("orgId") UUID orgId, @Param("projectId") UUID projectId, @Param("limit") int limit);

  @Update(
      "update generations set status = #{status}, changed_paths = #{changedPaths}, commit = #{commit},"
          + " detail = #{detail}, finished_at = #{at} where org_id = #{orgId} and id = #{id}")
  int finish(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("status") String status,
      @Param("changedPaths") int changedPaths,
      @Param("commit") String commit,
      @Param("detail") String detail,
      @Param("at") Instant at);

  /**
   * Stores planned units (at most {@link #UNITS_PER_INSERT}) in one statement: a plan of a thousand
   * units is a few statements, not a thousand round trips. {@code renderer} is the renderer's
   * output version.
   */
  @Insert({
    "<script>insert into generation_units (org_id, generation_id, idx, batch, path, input,"
        + " renderer, fingerprint, tree_id) values"
        + "<foreach collection='units' item='u' separator=','>"
        + "(#{orgId}, #{generationId}, #{u.idx}, #{u.batch}, #{u.path}, #{u.input}::jsonb,"
        + " #{renderer}, #{u.fingerprint}, #{u.treeId})"
        + "</foreach></script>"
  })
  void insertUnits(
      @Param("orgId") UUID orgId,
      @Param("generationId") UUID generationId,
      @Param("units") List<GenerationUnitRow> units,
      @Param("renderer") String renderer);

  /** The most units {@link #insertUnits} takes at once (9 parameters each, under 65,535). */
  int UNITS_PER_INSERT = 500;

  /** A rendered unit of an earlier generation: its path, input fingerprint and tree. */
  record RenderedUnit(String path, String fingerprint, String treeId) {}

  /**
   * The rendered units of the project's generations still on record (the last delivered one and any
   * planned after it), one per path and fingerprint, the newest revision's first: the trees a new
   * generation may reuse.
   */
  @Select(
      "select distinct on (u.path, u.fingerprint) u.path, u.fingerprint, u.tree_id"
          + " from generation_units u join generations g"
          + " on g.org_id = u.org_id and g.id = u.generation_id"
          + " where u.org_id = #{orgId} and g.project_id = #{projectId}"
          + " and u.fingerprint is not null and u.tree_id is not null"
          + " order by u.path, u.fingerprint, g.revision desc")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<RenderedUnit> renderedUnits(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  @Select(
      "select idx, batch, path, input::text as input, tree_id, fingerprint from generation_units"
          + " where org_id = #{orgId} and generation_id = #{generationId} and batch = #{batch} order by idx")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<GenerationUnitRow> batch(
      @Param("orgId") UUID orgId,
      @Param("generationId") UUID generationId,
      @Param("batch") int batch);

  /** Every unit's path and tree, without the inputs. */
  @Select(
      "select idx, batch, path, null as input, tree_id, fingerprint from generation_units"
          + " where org_id = #{orgId} and generation_id = #{generationId} order by idx")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<GenerationUnitRow> trees(
      @Param("orgId") UUID orgId, @Param("generationId") UUID generationId);

  @Update(
      "update generation_units set tree_id = #{treeId}"
          + " where org_id = #{orgId} and generation_id = #{generationId} and idx = #{idx}")
  int setTree(
      @Param("orgId") UUID orgId,
      @Param("generationId") UUID generationId,
      @Param("idx") int idx,
      @Param("treeId") String treeId);

  /** Keeps the units of the newest generations only; older inputs are history in Git. */
  @Update(
      "delete from generation_units where org_id = #{orgId} and generation_id in"
          + " (select id from generations where org_id = #{orgId} and project_id = #{projectId}"
          + " and revision < #{keepFrom})")
  int pruneUnits(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("keepFrom") long keepFrom);

  /** Records that a tenant-environment's generated output changed in {@code commit}. */
  @Insert(
      "insert into deliveries (org_id, project_id, environment_id, tenant_id, generated_commit, generated_at)"
          + " select #{orgId}, #{projectId}, e.id, t.id, #{commit}, #{at}"
          + " from environments e, tenants t"
          + " where e.org_id = #{orgId} and e.name = #{environment} and t.org_id = #{orgId} and t.name = #{tenant}"
          + " on conflict (project_id, environment_id, tenant_id)"
          + " do update set generated_commit = excluded.generated_commit, generated_at = excluded.generated_at")
  int recordGenerated(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environment") String environment,
      @Param("tenant") String tenant,
      @Param("commit") String commit,
      @Param("at") Instant at);
}

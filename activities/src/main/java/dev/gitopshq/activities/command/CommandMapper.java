package dev.gitopshq.activities.command;

import dev.gitopshq.activities.governance.GovernedStore;
import dev.gitopshq.activities.governance.GovernedTables;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Commands and their timelines. */
@GovernedTables(subjects = "commands", events = "command_events", subjectColumn = "command_id")
@Mapper
public interface CommandMapper extends GovernedStore {

  String LIST = "dev.gitopshq.activities.store.StringListTypeHandler";
  String MAP = "dev.gitopshq.activities.store.JsonMapTypeHandler";
  String COLUMNS =
      "id, org_id, cluster_id, type, target_namespace, target_kind, target_name, params, reason,"
          + " requester_id, requester_type, requester_name, break_glass, break_glass_justification,"
          + " status, status_detail, policy_name, policy_version, policy_sha256, decision_outcome,"
          + " decision_reasons, output, error, dispatch_deadline, dispatched_at, created_at,"
          + " updated_at, finished_at";

  @Insert(
      "insert into commands (id, org_id, cluster_id, type, target_namespace, target_kind,"
          + " target_name, params, reason, requester_id, requester_type, requester_name,"
          + " break_glass, break_glass_justification, status, created_at, updated_at)"
          + " values (#{id}, #{orgId}, #{clusterId}, #{type}, #{targetNamespace}, #{targetKind},"
          + " #{targetName}, #{params,typeHandler="
          + MAP
          + "}, #{reason}, #{requesterId},"
          + " #{requesterType}, #{requesterName}, #{breakGlass}, #{breakGlassJustification},"
          + " #{status}, #{createdAt}, #{updatedAt})")
  void insert(CommandRow command);

  @Select("select " + COLUMNS + " from commands where org_id = #{orgId} and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<CommandRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /**
   * The command's creation lock until the current transaction ends. The request that creates a
   * command holds it from the insert until its commit; the workflow's first step takes it too, so
   * it never runs ahead of a commit that has not happened yet (eager start hands the workflow its
   * first task while the request's transaction is still open).
   */
  @Select("select 1 from pg_advisory_xact_lock(7004, hashtext(#{id}::text))")
  int lockCreation(@Param("id") UUID id);

  @Select("select exists (select 1 from commands where org_id = #{orgId} and id = #{id})")
  boolean exists(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select({
    "<script>",
    "select " + COLUMNS + " from commands where org_id = #{orgId} and cluster_id = #{clusterId}",
    "<if test='q.type != null'> and type = #{q.type}</if>",
    "<if test='q.status != null'> and status = #{q.status}</if>",
    "<if test='q.from != null'> and created_at &gt;= #{q.from}</if>",
    "<if test='q.to != null'> and created_at &lt; #{q.to}</if>",
    "<if test='q.afterCreatedAt != null'>",
    " and (created_at, id) &lt; (#{q.afterCreatedAt}, #{q.afterId})",
    "</if>",
    "order by created_at desc, id desc limit #{q.limit}",
    "</script>"
  })
  List<CommandRow> list(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("q") CommandQuery q);

  @Select(
      "select seq, at, status, actor, detail from command_events"
          + " where org_id = #{orgId} and command_id = #{commandId} order by seq")
  List<CommandEventRow> events(@Param("orgId") UUID orgId, @Param("commandId") UUID commandId);

  /**
   * Notes the deadline of a command parked for its agent (its job is in {@code agent_jobs}). A
   * repeat (the workflow task that parked it retried after a crash) changes nothing.
   */
  @Update(
      "update commands set dispatch_deadline = #{deadline}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id} and dispatch_deadline is null"
          + " and output is null")
  int park(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("deadline") Instant deadline,
      @Param("now") Instant now);

  /** A stream carried the command (again, after a reconnect). */
  @Update("update commands set dispatched_at = #{now} where org_id = #{orgId} and id = #{id}")
  int markDispatched(@Param("orgId") UUID orgId, @Param("id") UUID id, @Param("now") Instant now);

  /**
   * Records an agent's report (or the hub's, when the command could not be sent) on the command, in
   * the transaction that records it on the command's job.
   */
  @Update(
      "update commands set output = #{output}, error = #{error}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id} and output is null")
  int recordReport(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("output") String output,
      @Param("error") String error,
      @Param("now") Instant now);
}

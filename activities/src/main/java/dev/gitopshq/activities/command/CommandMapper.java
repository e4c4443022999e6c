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
   * The task token of a command parked by {@link #park}: empty, since no activity waits for it; the
   * agent's report goes to the command's workflow as a signal.
   */
  static boolean reportsBySignal(byte[] token) {
    return token.length == 0;
  }

  /**
   * Parks a command for its agent, reported by signal (the workflow's version 2): the task token is
   * empty, and a command is parked once. A repeat (the workflow task that parked it retried after a
   * crash) finds it parked, or reported, and changes nothing.
   */
  @Update(
      "update commands set dispatch_task_token = ''::bytea, dispatch_deadline = #{deadline},"
          + " dispatched_at = null, updated_at = #{now} where org_id = #{orgId} and id = #{id}"
          + " and dispatch_task_token is null and output is null")
  int park(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("deadline") Instant deadline,
      @Param("now") Instant now);

  /** Parks a command for its agent with the execute activity's task token (versions 0 and 1). */
  @Update(
      "update commands set dispatch_task_token = #{token}, dispatch_deadline = #{deadline},"
          + " dispatched_at = null, updated_at = #{now} where org_id = #{orgId} and id = #{id}")
  int queue(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("token") byte[] token,
      @Param("deadline") Instant deadline,
      @Param("now") Instant now);

  /** Commands parked for a cluster's agent, oldest first. */
  @Select(
      "select "
          + COLUMNS
          + " from commands where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and dispatch_task_token is not null and output is null order by created_at")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<CommandRow> queued(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  /** Parked commands not yet sent on any stream, for the replicas' periodic sweep. */
  @Select(
      "select "
          + COLUMNS
          + " from commands where org_id = #{orgId} and dispatch_task_token is not null"
          + " and output is null and dispatched_at is null and cluster_id = any(#{clusters,typeHandler="
          + "dev.gitopshq.activities.sqltypes.UuidArrayTypeHandler})")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<CommandRow> unsent(@Param("orgId") UUID orgId, @Param("clusters") List<UUID> clusters);

  @Update(
      "update commands set dispatched_at = #{now} where org_id = #{orgId} and id = #{id}"
          + " and dispatch_task_token is not null")
  int markSent(@Param("orgId") UUID orgId, @Param("id") UUID id, @Param("now") Instant now);

  /**
   * Marks a parked command as carried by a stream unless one already carried it: 1 when the caller
   * won and sends it, 0 when another path of this or another replica did (a notification racing the
   * replica's own hand-over), so a command is sent once rather than once per path.
   */
  @Update(
      "update commands set dispatched_at = #{now} where org_id = #{orgId} and id = #{id}"
          + " and dispatch_task_token is not null and dispatched_at is null")
  int claimSend(@Param("orgId") UUID orgId, @Param("id") UUID id, @Param("now") Instant now);

  /**
   * Records an agent's report on a parked command and returns the command's task token, atomically:
   * of two replicas that receive the same report, one records it and hands it to the workflow. The
   * token stays until {@link #reportHandedOver}, so a report the hub could not hand over (Temporal
   * was unreachable, or the hub died in between) is found by {@link #reportsNotHandedOver} and
   * handed over again. (RETURNING shows the row after the update, so the token comes from the
   * locked CTE.)
   */
  @Select(
      "with taken as (select id, dispatch_task_token from commands"
          + " where org_id = #{orgId} and cluster_id = #{clusterId} and id = #{id}"
          + " and dispatch_task_token is not null and output is null for update)"
          + " update commands c set output = #{output}, error = #{error}, updated_at = #{now}"
          + " from taken where c.id = taken.id returning taken.dispatch_task_token as token")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<TaskToken> recordReportRow(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("id") UUID id,
      @Param("output") String output,
      @Param("error") String error,
      @Param("now") Instant now);

  /**
   * {@link #recordReportRow}, unwrapped: empty when the command already has a report (a repeat) or
   * is not a parked command of this cluster. (A bare {@code byte[]} result would be read by MyBatis
   * as an array of rows, hence the wrapper record.)
   */
  default Optional<byte[]> recordReport(
      UUID orgId, UUID clusterId, UUID id, String output, String error, Instant now) {
    return recordReportRow(orgId, clusterId, id, output, error, now).map(TaskToken::token);
  }

  /** The workflow has the report (or no longer waits for it): nothing is left to hand over. */
  @Update(
      "update commands set dispatch_task_token = null, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id} and output is not null")
  int reportHandedOver(@Param("orgId") UUID orgId, @Param("id") UUID id, @Param("now") Instant now);

  /**
   * Reports recorded for these clusters' commands before {@code before} that no workflow has
   * received yet (a report recorded since may still be on its way).
   */
  @Select(
      "select id, dispatch_task_token as token, output, error from commands"
          + " where org_id = #{orgId} and dispatch_task_token is not null and output is not null"
          + " and updated_at < #{before} and cluster_id = any(#{clusters,typeHandler="
          + "dev.gitopshq.activities.sqltypes.UuidArrayTypeHandler}) order by updated_at")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<PendingReport> reportsNotHandedOver(
      @Param("orgId") UUID orgId,
      @Param("clusters") List<UUID> clusters,
      @Param("before") Instant before);

  /** A recorded report on its way to the command's workflow; {@code error} is null on success. */
  record PendingReport(UUID id, byte[] token, String output, String error) {}

  /** A taken task token. */
  record TaskToken(byte[] token) {}
}

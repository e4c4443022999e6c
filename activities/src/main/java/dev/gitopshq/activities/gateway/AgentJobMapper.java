package dev.gitopshq.activities.gateway;

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

/**
 * The outbox of jobs for agents ({@code agent_jobs}, V40). Every statement names the organization;
 * the only ones that do not are the deadline sweep's, which act on ids they just read.
 */
@Mapper
public interface AgentJobMapper {
  String COLUMNS =
      "id, org_id, cluster_id, kind, ref, state, deadline, result::text as result, attempts,"
          + " created_at, sent_at, reported_at";
  String CLUSTERS = "dev.gitopshq.activities.sqltypes.UuidArrayTypeHandler";

  /**
   * Parks a job. A job is parked once per work: a repeat (the activity or workflow task that parked
   * it ran again) changes nothing, unless it brings a new task token (a retried activity attempt):
   * then the job is sent again (the agent answers a repeat from memory), or an answer already
   * recorded goes to the new attempt.
   *
   * @return 1 when the job was parked or taken over by the new attempt
   */
  @Insert(
      "insert into agent_jobs (id, org_id, cluster_id, kind, ref, state, task_token, workflow_id,"
          + " signal, deadline, created_at, updated_at) values (#{id}, #{orgId}, #{clusterId},"
          + " #{kind}, #{ref}, 'queued', #{token}, #{workflowId}, #{signal}, #{deadline}, #{now},"
          + " #{now}) on conflict (org_id, kind, ref) do update set"
          + " task_token = excluded.task_token, deadline = excluded.deadline,"
          + " state = case when agent_jobs.state = 'reported' then 'reported' else 'queued' end,"
          + " result = case when agent_jobs.state = 'reported' then agent_jobs.result end,"
          + " sent_at = null, completed_at = null, updated_at = excluded.updated_at"
          + " where excluded.task_token is not null and agent_jobs.cluster_id = excluded.cluster_id")
  int park(
      @Param("id") UUID id,
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("kind") String kind,
      @Param("ref") String ref,
      @Param("token") byte[] taskToken,
      @Param("workflowId") String workflowId,
      @Param("signal") String signal,
      @Param("deadline") Instant deadline,
      @Param("now") Instant now);

  /**
   * Parks a request whose message its asker built (sealed in {@code payload}); its answer is read
   * back from the row by the asker, so no Temporal handle. Asking again with the same reference (a
   * drift check run again) parks it afresh once the earlier one ended; while it still waits, a
   * repeat changes nothing and waits for the same answer.
   *
   * @return 1 when parked
   */
  @Insert(
      "insert into agent_jobs (id, org_id, cluster_id, kind, ref, state, payload, deadline,"
          + " created_at, updated_at) values (#{id}, #{orgId}, #{clusterId}, #{kind}, #{ref},"
          + " 'queued', #{payload}, #{deadline}, #{now}, #{now})"
          + " on conflict (org_id, kind, ref) do update set payload = excluded.payload,"
          + " state = 'queued', result = null, sent_at = null, reported_at = null,"
          + " completed_at = null, deadline = excluded.deadline, updated_at = excluded.updated_at"
          + " where agent_jobs.state in ('cancelled', 'completed')"
          + " and agent_jobs.cluster_id = excluded.cluster_id"
          + " and agent_jobs.task_token is null and agent_jobs.workflow_id is null")
  int parkRequest(
      @Param("id") UUID id,
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("kind") String kind,
      @Param("ref") String ref,
      @Param("payload") byte[] payload,
      @Param("deadline") Instant deadline,
      @Param("now") Instant now);

  /** The sealed message of a parked request. */
  @Select("select payload from agent_jobs where org_id = #{orgId} and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<Payload> payload(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** A sealed request message (a bare {@code byte[]} would be read as rows). */
  record Payload(byte[] payload) {}

  /**
   * The asker stopped waiting: a job not answered yet is cancelled, so a later stream never carries
   * it and a late answer is ignored.
   */
  @Update(
      "update agent_jobs set state = 'cancelled', task_token = null, payload = null,"
          + " updated_at = #{now} where org_id = #{orgId} and kind = #{kind} and ref = #{ref}"
          + " and state in ('queued', 'sent')")
  int abandon(
      @Param("orgId") UUID orgId,
      @Param("kind") String kind,
      @Param("ref") String ref,
      @Param("now") Instant now);

  @Select(
      "select "
          + COLUMNS
          + " from agent_jobs where org_id = #{orgId} and kind = #{kind} and ref = #{ref}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<AgentJob> find(
      @Param("orgId") UUID orgId, @Param("kind") String kind, @Param("ref") String ref);

  /** Jobs of a cluster's agent that wait for its answer (queued or sent), oldest first. */
  @Select(
      "select "
          + COLUMNS
          + " from agent_jobs where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and state in ('queued', 'sent') order by created_at")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<AgentJob> waiting(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  /** Jobs of these clusters no stream has carried yet, oldest first. */
  @Select(
      "select "
          + COLUMNS
          + " from agent_jobs where org_id = #{orgId} and state = 'queued'"
          + " and cluster_id = any(#{clusters,typeHandler="
          + CLUSTERS
          + "}) order by created_at")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<AgentJob> queued(@Param("orgId") UUID orgId, @Param("clusters") List<UUID> clusters);

  /**
   * Marks a waiting job as carried by a stream (again, after a reconnect): 1 when it still waits.
   */
  @Update(
      "update agent_jobs set state = 'sent', sent_at = #{now}, attempts = attempts + 1,"
          + " updated_at = #{now} where org_id = #{orgId} and id = #{id}"
          + " and state in ('queued', 'sent')")
  int markSent(@Param("orgId") UUID orgId, @Param("id") UUID id, @Param("now") Instant now);

  /**
   * Marks a queued job as carried by a stream unless one already carried it: 1 when the caller won
   * and sends it, 0 when another path of this or another replica did, so a job is sent once rather
   * than once per path.
   */
  @Update(
      "update agent_jobs set state = 'sent', sent_at = #{now}, attempts = attempts + 1,"
          + " updated_at = #{now} where org_id = #{orgId} and id = #{id} and state = 'queued'")
  int claimSend(@Param("orgId") UUID orgId, @Param("id") UUID id, @Param("now") Instant now);

  /**
   * Takes a waiting job of this cluster to record its answer: locks the row for the rest of the
   * caller's transaction, so of two replicas that receive the same answer one records it.
   */
  @Select(
      "select "
          + COLUMNS
          + " from agent_jobs where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and kind = #{kind} and ref = #{ref} and state in ('queued', 'sent') for update")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<AgentJob> takeWaiting(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("kind") String kind,
      @Param("ref") String ref);

  /** Records the value for Temporal; the job is then handed over. */
  @Update(
      "update agent_jobs set state = 'reported', result = #{result}::jsonb, payload = null,"
          + " reported_at = #{now},"
          + " updated_at = #{now} where org_id = #{orgId} and id = #{id}")
  int recordResult(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("result") String resultJson,
      @Param("now") Instant now);

  /** How a recorded answer reaches Temporal. */
  record Handle(
      UUID id,
      UUID orgId,
      String kind,
      byte[] taskToken,
      String workflowId,
      String signal,
      String result) {}

  @Select(
      "select id, org_id, kind, task_token, workflow_id, signal, result::text as result from agent_jobs"
          + " where org_id = #{orgId} and id = #{id} and state = 'reported'")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<Handle> handle(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /**
   * Answers of these clusters recorded before {@code before} that Temporal has not taken yet (one
   * recorded since may still be on its way), oldest first; those whose hand-over failed more often
   * last, so one Temporal keeps refusing does not hold up the others.
   */
  @Select(
      "select id, org_id, kind, task_token, workflow_id, signal, result::text as result from agent_jobs"
          + " where org_id = #{orgId} and state = 'reported' and reported_at < #{before}"
          + " and cluster_id = any(#{clusters,typeHandler="
          + CLUSTERS
          + "}) order by hand_overs, reported_at limit 100")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<Handle> notHandedOver(
      @Param("orgId") UUID orgId,
      @Param("clusters") List<UUID> clusters,
      @Param("before") Instant before);

  /** Handing the answer to Temporal failed once more. */
  @Update(
      "update agent_jobs set hand_overs = hand_overs + 1 where org_id = #{orgId} and id = #{id}"
          + " and state = 'reported'")
  int handOverFailed(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /**
   * Answers of any organization recorded before {@code before} and still not taken by Temporal
   * (their cluster's stream is held nowhere, e.g. a job answered by the deadline sweep), for the
   * sweep of every replica; it acts only on the ids it reads.
   */
  @Select(
      "select id, org_id from agent_jobs where state = 'reported' and reported_at < #{before}"
          + " order by hand_overs, reported_at limit 100")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<Stale> staleReports(@Param("before") Instant before);

  /** A recorded answer that waits too long for its hand-over. */
  record Stale(UUID id, UUID orgId) {}

  /** Temporal has the answer (or nobody waits for it any more); the token goes. */
  @Update(
      "update agent_jobs set state = 'completed', task_token = null, payload = null,"
          + " completed_at = #{now},"
          + " updated_at = #{now} where org_id = #{orgId} and id = #{id} and state = 'reported'")
  int handedOver(@Param("orgId") UUID orgId, @Param("id") UUID id, @Param("now") Instant now);

  /** Cancels a job no stream has carried yet; 1 when it is cancelled and will not be sent. */
  @Update(
      "update agent_jobs set state = 'cancelled', task_token = null, updated_at = #{now}"
          + " where org_id = #{orgId} and kind = #{kind} and ref = #{ref} and state = 'queued'")
  int cancel(
      @Param("orgId") UUID orgId,
      @Param("kind") String kind,
      @Param("ref") String ref,
      @Param("now") Instant now);

  /**
   * Queued jobs of every organization whose deadline passed, for the kinds the hub answers itself
   * when no agent took them in time; locked, skipping rows another replica holds.
   */
  @Select(
      "<script>select "
          + COLUMNS
          + " from agent_jobs where state = 'queued' and deadline &lt; #{now} and kind in"
          + " <foreach item='k' collection='kinds' open='(' separator=',' close=')'>#{k}</foreach>"
          + " order by deadline limit 100 for update skip locked</script>")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<AgentJob> overdue(@Param("kinds") List<String> kinds, @Param("now") Instant now);
}

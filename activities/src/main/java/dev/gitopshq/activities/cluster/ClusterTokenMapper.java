package dev.gitopshq.activities.cluster;

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

/** Registration and agent tokens of clusters. */
@Mapper
public interface ClusterTokenMapper {
  String COLUMNS =
      "id, org_id, cluster_id, kind, token_hash, status, created_at, expires_at, consumed_at,"
          + " revoked_at";

  @Insert(
      "insert into cluster_tokens (id, org_id, cluster_id, kind, token_hash, status, created_at,"
          + " expires_at) values (#{id}, #{orgId}, #{clusterId}, #{kind}, #{tokenHash}, #{status},"
          + " #{createdAt}, #{expiresAt})")
  void insert(ClusterTokenRow token);

  /**
   * Consumes a registration token: one statement that succeeds for exactly one caller, however many
   * present the same token at once. Like {@link
   * dev.gitopshq.activities.identity.ApiTokenMapper#authenticate}, it looks up by hash because the
   * token is what tells which organization the caller belongs to.
   */
  @Select(
      "update cluster_tokens set status = 'consumed', consumed_at = #{now}"
          + " where token_hash = #{hash} and kind = 'registration' and status = 'active'"
          + " and expires_at > #{now} returning "
          + COLUMNS)
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<ClusterTokenRow> consumeRegistration(
      @Param("hash") String hash, @Param("now") Instant now);

  /**
   * Authenticates an agent token for a Connect stream (looked up by hash, as above). A pending
   * token (delivered in a rotation, not yet activated) is accepted too: the agent persisted it and
   * may restart before the hub activates it; if the rotation fails it is revoked.
   */
  @Select(
      "select "
          + COLUMNS
          + " from cluster_tokens where token_hash = #{hash} and kind = 'agent'"
          + " and status in ('active', 'pending') and (expires_at is null or expires_at > #{now})")
  Optional<ClusterTokenRow> findActiveAgentToken(
      @Param("hash") String hash, @Param("now") Instant now);

  /**
   * A registration token's issue lock until the current transaction ends. The request that issues
   * the token holds it from the insert until its commit; the registration workflow's first activity
   * takes it too, so it never looks for the token before that commit (the workflow starts inside
   * the request's transaction).
   */
  @Select("select 1 from pg_advisory_xact_lock(7005, hashtext(#{id}::text))")
  int lockIssue(@Param("id") UUID id);

  @Select("select " + COLUMNS + " from cluster_tokens where org_id = #{orgId} and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<ClusterTokenRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Ends every unused registration token of a cluster; returns the ids it ended. */
  @Select(
      "update cluster_tokens set status = 'superseded', revoked_at = #{now}"
          + " where org_id = #{orgId} and cluster_id = #{clusterId} and kind = 'registration'"
          + " and status = 'active' returning id")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<UUID> supersedeRegistrationTokens(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("now") Instant now);

  /** Expires a registration token if, and only if, it is still unused. */
  @Update(
      "update cluster_tokens set status = 'expired' where org_id = #{orgId} and id = #{id}"
          + " and kind = 'registration' and status = 'active'")
  int expireIfUnused(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /**
   * The rotation a pending agent token was issued by; empty once it is active, revoked or gone. A
   * stream opened with a pending token proves that the agent persisted it (the agent switches to a
   * rotated token only after saving it), whether or not its {@code TokenRotated} answer arrived.
   */
  @Select(
      "select rotation_id::text from cluster_tokens where org_id = #{orgId} and id = #{id}"
          + " and kind = 'agent' and status = 'pending' and rotation_id is not null")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<String> pendingRotation(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Whether rotation {@code rotationId} issued a token of this cluster (of this organization). */
  @Select(
      "select exists (select 1 from cluster_tokens where org_id = #{orgId}"
          + " and cluster_id = #{clusterId} and rotation_id = #{rotationId})")
  boolean isRotationOf(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("rotationId") UUID rotationId);

  /** Inserts the pending token of a rotation. */
  @Insert(
      "insert into cluster_tokens (id, org_id, cluster_id, kind, token_hash, status, created_at,"
          + " rotation_id) values (#{id}, #{orgId}, #{clusterId}, 'agent', #{hash}, 'pending',"
          + " #{now}, #{rotationId})")
  void insertPending(
      @Param("id") UUID id,
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("hash") String hash,
      @Param("rotationId") UUID rotationId,
      @Param("now") Instant now);

  /** Revokes what an earlier attempt of this rotation issued (its plaintext is gone). */
  @Update(
      "update cluster_tokens set status = 'revoked', revoked_at = #{now}, rotation_id = null"
          + " where org_id = #{orgId} and rotation_id = #{rotationId}")
  int revokeRotation(
      @Param("orgId") UUID orgId, @Param("rotationId") UUID rotationId, @Param("now") Instant now);

  /** Activates a rotation's pending token. */
  @Update(
      "update cluster_tokens set status = 'active' where org_id = #{orgId} and id = #{id}"
          + " and status = 'pending'")
  int activate(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Limits the cluster's other live agent tokens to the grace period. */
  @Update(
      "update cluster_tokens set expires_at = least(coalesce(expires_at, 'infinity'), #{until})"
          + " where org_id = #{orgId} and cluster_id = #{clusterId} and kind = 'agent'"
          + " and status in ('active', 'pending') and id <> #{keep}")
  int expireOthersAt(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("keep") UUID keep,
      @Param("until") Instant until);

  /** Of these token ids, the ones that still authenticate. */
  @Select(
      "select id from cluster_tokens where id = any(#{ids,typeHandler="
          + "dev.gitopshq.activities.sqltypes.UuidArrayTypeHandler}) and status in ('active', 'pending')"
          + " and (expires_at is null or expires_at > #{now})")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<UUID> stillValid(@Param("ids") List<UUID> ids, @Param("now") Instant now);

  /** Revokes every live agent token of a cluster except {@code keep}; returns the ids. */
  @Select(
      "update cluster_tokens set status = 'revoked', revoked_at = #{now}"
          + " where org_id = #{orgId} and cluster_id = #{clusterId} and kind = 'agent'"
          + " and status in ('active', 'pending') and id <> #{keep} returning id")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<UUID> revokeAgentTokensExcept(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("keep") UUID keep,
      @Param("now") Instant now);

  /**
   * Sets whether the agent that registers with this registration token must be accepted by an
   * admin: true or false decide, null follows the organization's setting.
   */
  @Update(
      "update cluster_tokens set require_acceptance = #{required}"
          + " where org_id = #{orgId} and id = #{id} and kind = 'registration'")
  int setRequireAcceptance(
      @Param("orgId") UUID orgId, @Param("id") UUID id, @Param("required") Boolean required);

  /**
   * Whether the agent registering with this registration token waits for an admin's acceptance: the
   * token's own choice, else the organization's default.
   */
  @Select(
      "select coalesce(t.require_acceptance, o.require_agent_acceptance) from cluster_tokens t"
          + " join organizations o on o.id = t.org_id"
          + " where t.org_id = #{orgId} and t.id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  boolean acceptanceRequired(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Revokes every live agent token of a cluster (an admin rejected it); returns the ids. */
  @Select(
      "update cluster_tokens set status = 'revoked', revoked_at = #{now}"
          + " where org_id = #{orgId} and cluster_id = #{clusterId} and kind = 'agent'"
          + " and status in ('active', 'pending') returning id")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<UUID> revokeAgentTokens(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("now") Instant now);
}

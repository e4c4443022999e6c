package dev.gitopshq.activities.git;

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

/** Deploy tokens of projects' hosted repositories. */
@Mapper
public interface DeployTokenMapper {
  String COLUMNS =
      "id, org_id, project_id, name, token_hash, created_by, created_at, expires_at, revoked_at,"
          + " last_used_at";

  @Insert(
      "insert into deploy_tokens (id, org_id, project_id, name, token_hash, created_by, created_at,"
          + " expires_at) values (#{id}, #{orgId}, #{projectId}, #{name}, #{tokenHash},"
          + " #{createdBy}, #{createdAt}, #{expiresAt})")
  void insert(DeployTokenRow token);

  /**
   * A live deploy token by its hash. The token is what tells which organization and project the
   * caller may read, so this is the one query here that does not filter by org_id.
   */
  @Select(
      "select "
          + COLUMNS
          + " from deploy_tokens where token_hash = #{hash} and revoked_at is null"
          + " and (expires_at is null or expires_at > #{now})")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<DeployTokenRow> authenticate(@Param("hash") String hash, @Param("now") Instant now);

  /** A project's tokens, oldest first, revoked and expired ones included. */
  @Select(
      "select "
          + COLUMNS
          + " from deploy_tokens where org_id = #{orgId} and project_id = #{projectId}"
          + " order by created_at, id")
  List<DeployTokenRow> list(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  @Select(
      "select "
          + COLUMNS
          + " from deploy_tokens where org_id = #{orgId} and project_id = #{projectId}"
          + " and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<DeployTokenRow> find(
      @Param("orgId") UUID orgId, @Param("projectId") UUID projectId, @Param("id") UUID id);

  /** Revokes a token unless it already is; returns 1 when this call revoked it. */
  @Update(
      "update deploy_tokens set revoked_at = #{now} where org_id = #{orgId}"
          + " and project_id = #{projectId} and id = #{id} and revoked_at is null")
  int revoke(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("id") UUID id,
      @Param("now") Instant now);

  /**
   * Records a use of the token, unless one was recorded after {@code since}: the row is written at
   * most once per interval however often Argo CD or Flux poll.
   */
  @Update(
      "update deploy_tokens set last_used_at = #{now} where org_id = #{orgId} and id = #{id}"
          + " and (last_used_at is null or last_used_at < #{since})")
  int touch(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("now") Instant now,
      @Param("since") Instant since);
}

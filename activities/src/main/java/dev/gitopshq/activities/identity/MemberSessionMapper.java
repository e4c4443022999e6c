package dev.gitopshq.activities.identity;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Hub sessions of members who signed in through SSO ({@code ghqo_} tokens, stored hashed). */
@Mapper
public interface MemberSessionMapper {
  /** A session; {@code client} is {@code browser} or {@code cli}. */
  record MemberSession(
      UUID id,
      UUID orgId,
      UUID memberId,
      String tokenHash,
      String client,
      Instant createdAt,
      Instant expiresAt,
      Instant revokedAt) {}

  @Insert(
      "insert into member_sessions (id, org_id, member_id, token_hash, client, created_at,"
          + " expires_at) values (#{id}, #{orgId}, #{memberId}, #{tokenHash}, #{client},"
          + " #{createdAt}, #{expiresAt})")
  void insert(MemberSession session);

  /**
   * Authenticates a presented session token by its hash: the member it speaks for, with the
   * member's current role. Like API tokens, this lookup establishes the organization.
   */
  @Select(
      "select s.id as token_id, s.org_id, s.member_id, null as service_account_id,"
          + " m.email as name, m.role, '{}'::text[] as scopes, o.operator as operator_org,"
          + " s.expires_at"
          + " from member_sessions s join organizations o on o.id = s.org_id"
          + " join members m on m.org_id = s.org_id and m.id = s.member_id"
          + " where s.token_hash = #{hash} and s.revoked_at is null and s.expires_at > #{now}"
          + " and m.removed_at is null")
  Optional<TokenPrincipal> authenticate(@Param("hash") String hash, @Param("now") Instant now);

  /** Revokes a live session of a member; 0 when it is not one (or already revoked). */
  @Update(
      "update member_sessions set revoked_at = #{now}"
          + " where org_id = #{orgId} and member_id = #{memberId} and id = #{id}"
          + " and revoked_at is null")
  int revoke(
      @Param("orgId") UUID orgId,
      @Param("memberId") UUID memberId,
      @Param("id") UUID id,
      @Param("now") Instant now);

  /** Revokes every live session of a member; the number revoked. */
  @Update(
      "update member_sessions set revoked_at = #{now}"
          + " where org_id = #{orgId} and member_id = #{memberId} and revoked_at is null")
  int revokeAll(
      @Param("orgId") UUID orgId, @Param("memberId") UUID memberId, @Param("now") Instant now);
}

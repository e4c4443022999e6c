package dev.gitopshq.activities.identity;

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

/** API tokens of members and service accounts. */
@Mapper
public interface ApiTokenMapper {
  String COLUMNS =
      "id, org_id, member_id, service_account_id, name, token_hash, scopes, created_by,"
          + " created_at, expires_at, revoked_at, last_used_at, revoked_by";

  @Insert(
      "insert into api_tokens (id, org_id, member_id, service_account_id, name, token_hash,"
          + " scopes, created_by, created_at, expires_at)"
          + " values (#{id}, #{orgId}, #{memberId}, #{serviceAccountId}, #{name}, #{tokenHash},"
          + " #{scopes,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler}, #{createdBy}, #{createdAt}, #{expiresAt})")
  void insert(ApiTokenRow token);

  /**
   * Authenticates a presented token by its hash. This lookup establishes the caller's organization,
   * so it is the one query here that cannot filter by org_id first.
   */
  @Select(
      "select t.id as token_id, t.org_id, t.member_id, t.service_account_id,"
          + " coalesce(m.email, s.name) as name, m.role,"
          // A service account's token never holds more than the account holds now.
          + " case when t.service_account_id is null then t.scopes else array(select x from"
          + " unnest(t.scopes) x where x = any(s.scopes)) end as scopes, o.operator as operator_org,"
          + " t.expires_at"
          + " from api_tokens t join organizations o on o.id = t.org_id"
          + " left join members m on m.org_id = t.org_id and m.id = t.member_id"
          + " left join service_accounts s on s.org_id = t.org_id and s.id = t.service_account_id"
          + " where t.token_hash = #{hash} and t.revoked_at is null"
          + " and (t.expires_at is null or t.expires_at > #{now})"
          + " and (t.member_id is null or m.removed_at is null)"
          + " and (t.service_account_id is null or s.disabled_at is null)")
  Optional<TokenPrincipal> authenticate(@Param("hash") String hash, @Param("now") Instant now);

  /**
   * Why a caller that authenticated earlier may no longer act: one row per API token or SSO session
   * among {@code ids} that still exists, with {@code reason} null while it would still authenticate
   * and hold {@code scope}, otherwise {@code member removed}, {@code service account disabled},
   * {@code token revoked}, {@code session revoked}, {@code token expired}, {@code session expired}
   * or {@code <scope> withdrawn}. An id that is in neither table is gone (its organization was
   * deleted). Open log streams ask this every second, so revocation ends them on every hub.
   */
  @Select(
      "select t.id, case"
          + " when t.member_id is not null and (m.id is null or m.removed_at is not null)"
          + " then 'member removed'"
          + " when t.service_account_id is not null and (s.id is null or s.disabled_at is not null)"
          + " then 'service account disabled'"
          + " when t.revoked_at is not null then 'token revoked'"
          + " when t.expires_at is not null and t.expires_at <= #{now} then 'token expired'"
          + " when t.service_account_id is not null"
          + " and not (#{scope} = any(t.scopes) and #{scope} = any(s.scopes))"
          + " then #{scope} || ' withdrawn'"
          + " end as reason"
          + " from api_tokens t"
          + " left join members m on m.org_id = t.org_id and m.id = t.member_id"
          + " left join service_accounts s on s.org_id = t.org_id and s.id = t.service_account_id"
          + " where t.id = any(#{ids,typeHandler=dev.gitopshq.activities.sqltypes.UuidArrayTypeHandler})"
          + " union all"
          + " select x.id, case"
          + " when m.id is null or m.removed_at is not null then 'member removed'"
          + " when x.revoked_at is not null then 'session revoked'"
          + " when x.expires_at <= #{now} then 'session expired'"
          + " end as reason"
          + " from member_sessions x"
          + " left join members m on m.org_id = x.org_id and m.id = x.member_id"
          + " where x.id = any(#{ids,typeHandler=dev.gitopshq.activities.sqltypes.UuidArrayTypeHandler})")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<CallerState> callerStates(
      @Param("ids") List<UUID> ids, @Param("scope") String scope, @Param("now") Instant now);

  /** See {@link #callerStates}: {@code reason} is null while the caller may still act. */
  record CallerState(UUID id, String reason) {}

  @Select(
      "select "
          + COLUMNS
          + " from api_tokens where org_id = #{orgId} and member_id = #{memberId}"
          + " order by created_at")
  List<ApiTokenRow> listForMember(@Param("orgId") UUID orgId, @Param("memberId") UUID memberId);

  @Select(
      "select "
          + COLUMNS
          + " from api_tokens where org_id = #{orgId} and service_account_id = #{accountId}"
          + " order by created_at")
  List<ApiTokenRow> listForServiceAccount(
      @Param("orgId") UUID orgId, @Param("accountId") UUID accountId);

  @Select("select " + COLUMNS + " from api_tokens where org_id = #{orgId} and id = #{id}")
  Optional<ApiTokenRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Revokes one live token; 0 when it is not live (already revoked, or not this org's). */
  @Update(
      "update api_tokens set revoked_at = #{now}, revoked_by = #{by}"
          + " where org_id = #{orgId} and id = #{id} and revoked_at is null")
  int revoke(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("by") String by,
      @Param("now") Instant now);

  /** Revokes every live token of a member; the number revoked. */
  @Update(
      "update api_tokens set revoked_at = #{now}, revoked_by = #{by}"
          + " where org_id = #{orgId} and member_id = #{memberId} and revoked_at is null")
  int revokeAllOfMember(
      @Param("orgId") UUID orgId,
      @Param("memberId") UUID memberId,
      @Param("by") String by,
      @Param("now") Instant now);

  /** Revokes every live token of a service account; the number revoked. */
  @Update(
      "update api_tokens set revoked_at = #{now}, revoked_by = #{by}"
          + " where org_id = #{orgId} and service_account_id = #{accountId} and revoked_at is null")
  int revokeAllOfServiceAccount(
      @Param("orgId") UUID orgId,
      @Param("accountId") UUID accountId,
      @Param("by") String by,
      @Param("now") Instant now);

  /**
   * Records a use of the token. At most one write a minute per token, so a busy token does not turn
   * every read into a write.
   */
  @Update(
      "update api_tokens set last_used_at = #{now} where id = #{id}"
          + " and (last_used_at is null or last_used_at < #{now} - interval '1 minute')")
  int touch(@Param("id") UUID id, @Param("now") Instant now);

  @Select("select exists (select 1 from api_tokens where token_hash = #{hash})")
  boolean existsHash(@Param("hash") String hash);
}

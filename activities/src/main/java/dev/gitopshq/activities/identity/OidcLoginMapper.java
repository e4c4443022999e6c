package dev.gitopshq.activities.identity;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** Browser sign-ins in flight (between the redirect to the provider and its callback). */
@Mapper
public interface OidcLoginMapper {
  /**
   * A sign-in in flight.
   *
   * @param stateHash SHA-256 hex of the state parameter
   * @param codeVerifier the PKCE code verifier, sealed
   * @param clientState the web UI's own random state for this sign-in, handed back with the session
   *     so the UI accepts only sessions of sign-ins it started (null for sign-ins started before
   *     V37)
   * @param clientAddress the address the sign-in was started from (null for older rows)
   */
  record OidcLogin(
      String stateHash,
      UUID orgId,
      String nonce,
      byte[] codeVerifier,
      String clientState,
      Instant createdAt,
      Instant expiresAt,
      String clientAddress) {
    @Override
    public String toString() {
      return "OidcLogin[org=" + orgId + "]";
    }
  }

  @Insert(
      "insert into oidc_logins (state_hash, org_id, nonce, code_verifier, client_state,"
          + " created_at, expires_at, client_address) values (#{stateHash}, #{orgId}, #{nonce},"
          + " #{codeVerifier}, #{clientState}, #{createdAt}, #{expiresAt}, #{clientAddress})")
  void insert(OidcLogin login);

  /**
   * Takes a sign-in by its state: deletes and returns it, so each state is used once. This lookup
   * by the state's hash is what establishes the organization of the sign-in.
   */
  @Select(
      "delete from oidc_logins where state_hash = #{stateHash} and expires_at > #{now}"
          + " returning state_hash, org_id, nonce, code_verifier, client_state, created_at,"
          + " expires_at, client_address")
  Optional<OidcLogin> take(@Param("stateHash") String stateHash, @Param("now") Instant now);

  @Delete("delete from oidc_logins where expires_at <= #{now}")
  int deleteExpired(@Param("now") Instant now);

  /** Sign-ins in flight started from one client address and not expired. */
  @Select(
      "select count(*) from oidc_logins where client_address = #{address} and expires_at > #{now}")
  long countFrom(@Param("address") String address, @Param("now") Instant now);

  /** Sign-ins in flight, expired or not. */
  @Select("select count(*) from oidc_logins")
  long count();

  /**
   * Records that an access token of the provider was exchanged for a hub session: true the first
   * time, false when this token (by the hash of its identity) was exchanged before. The row is kept
   * until the token expires.
   */
  @Insert(
      "insert into oidc_exchanged_tokens (org_id, token_hash, exchanged_at, expires_at)"
          + " values (#{orgId}, #{tokenHash}, #{now}, #{expiresAt})"
          + " on conflict (org_id, token_hash) do nothing")
  int recordExchange(
      @Param("orgId") UUID orgId,
      @Param("tokenHash") String tokenHash,
      @Param("now") Instant now,
      @Param("expiresAt") Instant expiresAt);

  /** Forgets exchanged tokens that have expired (the provider's verification refuses them now). */
  @Delete("delete from oidc_exchanged_tokens where org_id = #{orgId} and expires_at <= #{now}")
  int deleteExpiredExchanges(@Param("orgId") UUID orgId, @Param("now") Instant now);
}

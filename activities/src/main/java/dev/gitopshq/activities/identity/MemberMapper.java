package dev.gitopshq.activities.identity;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Members of an organization. */
@Mapper
public interface MemberMapper {
  String COLUMNS = "id, org_id, email, name, role, teams, created_at";

  @Insert(
      "insert into members (id, org_id, email, name, role, teams, created_at)"
          + " values (#{id}, #{orgId}, #{email}, #{name}, #{role},"
          + " #{teams,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler},"
          + " #{createdAt})")
  void insert(MemberRow member);

  @Select(
      "select "
          + COLUMNS
          + " from members where org_id = #{orgId} and id = #{id}"
          + " and removed_at is null")
  Optional<MemberRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select(
      "select "
          + COLUMNS
          + " from members where org_id = #{orgId} and email = #{email}"
          + " and removed_at is null")
  Optional<MemberRow> findByEmail(@Param("orgId") UUID orgId, @Param("email") String email);

  @Select(
      "select "
          + COLUMNS
          + " from members where org_id = #{orgId} and removed_at is null"
          + " order by created_at, email")
  List<MemberRow> list(@Param("orgId") UUID orgId);

  @Update(
      "update members set role = #{role},"
          + " teams = #{teams,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler}"
          + " where org_id = #{orgId} and id = #{id}")
  int update(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("role") String role,
      @Param("teams") List<String> teams);

  /** The member who signed in through SSO with this provider identity. */
  @Select(
      "select "
          + COLUMNS
          + " from members where org_id = #{orgId} and oidc_issuer = #{issuer}"
          + " and oidc_subject = #{subject} and removed_at is null")
  Optional<MemberRow> findByOidcIdentity(
      @Param("orgId") UUID orgId, @Param("issuer") String issuer, @Param("subject") String subject);

  /** Links a member to a provider identity (issuer and subject) at their first SSO sign-in. */
  @Update(
      "update members set oidc_issuer = #{issuer}, oidc_subject = #{subject}"
          + " where org_id = #{orgId} and id = #{id}")
  int linkOidcIdentity(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("issuer") String issuer,
      @Param("subject") String subject);

  /** Every member row the organization ever had, removed ones included (for the bootstrap). */
  @Select("select count(*) from members where org_id = #{orgId}")
  int count(@Param("orgId") UUID orgId);

  /** The number of members with this role who have not been removed. */
  @Select(
      "select count(*) from members where org_id = #{orgId} and role = #{role}"
          + " and removed_at is null")
  int countWithRole(@Param("orgId") UUID orgId, @Param("role") String role);

  /**
   * Whether a removed member had this provider identity or email: SSO does not let them back in by
   * itself.
   */
  @Select(
      "select exists (select 1 from members where org_id = #{orgId} and removed_at is not null"
          + " and ((oidc_issuer = #{issuer} and oidc_subject = #{subject}) or email = #{email}))")
  boolean wasRemoved(
      @Param("orgId") UUID orgId,
      @Param("issuer") String issuer,
      @Param("subject") String subject,
      @Param("email") String email);

  /** Removes a member (the row stays for the record); 0 when there is no such live member. */
  @Update(
      "update members set removed_at = #{now} where org_id = #{orgId} and id = #{id}"
          + " and removed_at is null")
  int remove(@Param("orgId") UUID orgId, @Param("id") UUID id, @Param("now") Instant now);
}

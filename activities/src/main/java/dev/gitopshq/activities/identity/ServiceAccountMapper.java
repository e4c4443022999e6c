package dev.gitopshq.activities.identity;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Service accounts of an organization. */
@Mapper
public interface ServiceAccountMapper {
  String COLUMNS =
      "id, org_id, name, description, scopes, created_by, created_at, owner_member_id,"
          + " disabled_at, created_by_account";

  @Insert(
      "insert into service_accounts (id, org_id, name, description, scopes, created_by, created_at,"
          + " owner_member_id, created_by_account) values (#{id}, #{orgId}, #{name}, #{description},"
          + " #{scopes,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler},"
          + " #{createdBy}, #{createdAt}, #{ownerMemberId}, #{createdByAccount})")
  void insert(ServiceAccountRow account);

  @Select("select " + COLUMNS + " from service_accounts where org_id = #{orgId} and id = #{id}")
  Optional<ServiceAccountRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select("select " + COLUMNS + " from service_accounts where org_id = #{orgId} and name = #{name}")
  Optional<ServiceAccountRow> findByName(@Param("orgId") UUID orgId, @Param("name") String name);

  @Select("select " + COLUMNS + " from service_accounts where org_id = #{orgId} order by name")
  List<ServiceAccountRow> list(@Param("orgId") UUID orgId);

  /**
   * Everyone who stands behind a request the account makes, for four eyes: its creator and owner,
   * and up its chain of creating accounts (an account made by an account made by a member) every
   * account, its creator and its current owner, down to the member at the root. Nearest first; none
   * of them may approve the account's requests. Bounded at 64 links.
   */
  @Select(
      "with recursive chain (id, created_by, owner_member_id, created_by_account, depth) as ("
          + " select id, created_by, owner_member_id, created_by_account, 0 from service_accounts"
          + " where org_id = #{orgId} and id = #{id}"
          + " union all select s.id, s.created_by, s.owner_member_id, s.created_by_account,"
          + " c.depth + 1 from chain c join service_accounts s"
          + " on s.org_id = #{orgId} and s.id = c.created_by_account where c.depth < 64)"
          + " select who from (select x.who, min(c.depth * 3 + x.n) as rank from chain c,"
          + " lateral (values (0, case when c.depth > 0 then c.id::text end),"
          + " (1, c.created_by::text), (2, c.owner_member_id::text)) x (n, who)"
          + " where x.who is not null group by x.who) w order by rank")
  List<String> behind(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Changes what may change: description, scopes, owner, and whether it is disabled. */
  @Update(
      "update service_accounts set description = #{a.description},"
          + " scopes = #{a.scopes,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler},"
          + " owner_member_id = #{a.ownerMemberId}, disabled_at = #{a.disabledAt}"
          + " where org_id = #{a.orgId} and id = #{a.id}")
  int update(@Param("a") ServiceAccountRow account);
}

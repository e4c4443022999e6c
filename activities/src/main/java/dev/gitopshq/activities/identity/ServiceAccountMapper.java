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
          + " disabled_at";

  @Insert(
      "insert into service_accounts (id, org_id, name, description, scopes, created_by, created_at,"
          + " owner_member_id) values (#{id}, #{orgId}, #{name}, #{description},"
          + " #{scopes,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler},"
          + " #{createdBy}, #{createdAt}, #{ownerMemberId})")
  void insert(ServiceAccountRow account);

  @Select("select " + COLUMNS + " from service_accounts where org_id = #{orgId} and id = #{id}")
  Optional<ServiceAccountRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select("select " + COLUMNS + " from service_accounts where org_id = #{orgId} and name = #{name}")
  Optional<ServiceAccountRow> findByName(@Param("orgId") UUID orgId, @Param("name") String name);

  @Select("select " + COLUMNS + " from service_accounts where org_id = #{orgId} order by name")
  List<ServiceAccountRow> list(@Param("orgId") UUID orgId);

  /** Changes what may change: description, scopes, owner, and whether it is disabled. */
  @Update(
      "update service_accounts set description = #{a.description},"
          + " scopes = #{a.scopes,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler},"
          + " owner_member_id = #{a.ownerMemberId}, disabled_at = #{a.disabledAt}"
          + " where org_id = #{a.orgId} and id = #{a.id}")
  int update(@Param("a") ServiceAccountRow account);
}

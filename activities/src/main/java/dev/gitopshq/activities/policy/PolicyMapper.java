package dev.gitopshq.activities.policy;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Versioned policies of an organization. Every statement filters by {@code org_id}. */
@Mapper
public interface PolicyMapper {
  String COLUMNS = "org_id, name, version, rego, created_by, created_at, active";

  @Select("select " + COLUMNS + " from policies where org_id = #{orgId} and active order by name")
  List<PolicyRow> listActive(@Param("orgId") UUID orgId);

  @Select(
      "select " + COLUMNS + " from policies where org_id = #{orgId} and name = #{name} and active")
  Optional<PolicyRow> findActive(@Param("orgId") UUID orgId, @Param("name") String name);

  /** Whether the policy has an active version, without reading its text. */
  @Select(
      "select exists (select 1 from policies where org_id = #{orgId} and name = #{name} and"
          + " active)")
  boolean hasActive(@Param("orgId") UUID orgId, @Param("name") String name);

  @Select(
      "select "
          + COLUMNS
          + " from policies where org_id = #{orgId} and name = #{name} and version = #{version}")
  Optional<PolicyRow> findVersion(
      @Param("orgId") UUID orgId, @Param("name") String name, @Param("version") int version);

  @Select(
      "select version, created_by, created_at, active from policies"
          + " where org_id = #{orgId} and name = #{name} order by version desc")
  List<PolicyVersionRow> versions(@Param("orgId") UUID orgId, @Param("name") String name);

  /** The highest version ever stored for the name, 0 when there is none. */
  @Select(
      "select coalesce(max(version), 0) from policies where org_id = #{orgId} and name = #{name}")
  int latestVersion(@Param("orgId") UUID orgId, @Param("name") String name);

  @Update(
      "update policies set active = false where org_id = #{orgId} and name = #{name} and active")
  int deactivate(@Param("orgId") UUID orgId, @Param("name") String name);

  @Insert(
      "insert into policies (org_id, name, version, rego, created_by, created_at, active)"
          + " values (#{orgId}, #{name}, #{version}, #{rego}, #{createdBy}, #{createdAt},"
          + " #{active})")
  void insert(PolicyRow row);

  /** Whether the organization exists: where a module found in OPA may be audited. */
  @Select("select exists (select 1 from organizations where id = #{orgId})")
  boolean orgExists(@Param("orgId") UUID orgId);

  /**
   * The operator organization (the one the bootstrap created), whose audit log records a module
   * found in OPA outside every organization's namespace.
   */
  @Select("select id from organizations where operator")
  Optional<UUID> operatorOrg();

  /**
   * Serializes publishing of one policy of one organization, across hub replicas, until the end of
   * the current transaction. The session cache is flushed so nothing read before the lock is served
   * again after it.
   */
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  @Select("select 1 from pg_advisory_xact_lock(7003, hashtext(#{orgId}::text || '/' || #{name}))")
  Integer lock(@Param("orgId") UUID orgId, @Param("name") String name);
}

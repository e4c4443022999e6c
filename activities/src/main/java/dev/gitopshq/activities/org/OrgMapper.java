package dev.gitopshq.activities.org;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Organizations. */
@Mapper
public interface OrgMapper {
  @Insert(
      "insert into organizations (id, slug, name, plan, created_at)"
          + " values (#{id}, #{slug}, #{name}, #{plan}, #{createdAt})"
          + " on conflict (slug) do nothing")
  int insertIfAbsent(OrgRow org);

  @Select("select id, slug, name, plan, created_at from organizations where slug = #{slug}")
  Optional<OrgRow> findBySlug(String slug);

  @Select("select id, slug, name, plan, created_at from organizations where id = #{id}")
  Optional<OrgRow> findById(UUID id);

  String SUMMARY =
      "select o.id, o.slug, o.name, o.plan, o.operator, o.created_at, o.created_by,"
          + " (select count(*) from members m where m.org_id = o.id and m.removed_at is null)"
          + " as members,"
          + " (select count(*) from clusters c where c.org_id = o.id) as clusters"
          + " from organizations o";

  /** Every organization, oldest first: the instance's view, not one organization's. */
  @Select(SUMMARY + " order by o.created_at, o.slug")
  List<OrgSummary> listAll();

  @Select(SUMMARY + " where o.id = #{id}")
  Optional<OrgSummary> summary(@Param("id") UUID id);

  @Select("select coalesce((select operator from organizations where id = #{id}), false)")
  boolean isOperator(@Param("id") UUID id);

  @Select("select id from organizations order by created_at")
  List<UUID> ids();

  @Insert(
      "insert into organizations (id, slug, name, plan, created_at, created_by)"
          + " values (#{org.id}, #{org.slug}, #{org.name}, #{org.plan}, #{org.createdAt},"
          + " #{createdBy})")
  void insert(@Param("org") OrgRow org, @Param("createdBy") String createdBy);

  /**
   * Makes this organization the operator organization, whose owners administer the instance, when
   * there is none yet.
   */
  @Update(
      "update organizations set operator = true where id = #{id}"
          + " and not exists (select 1 from organizations where operator)")
  int claimOperator(@Param("id") UUID id);

  /**
   * Puts the organization on another plan. Returns the plan it was on, or empty when there is no
   * such organization.
   */
  @Select(
      "update organizations o set plan = #{plan} from (select id, plan from organizations"
          + " where id = #{id} for update) old where o.id = old.id returning old.plan")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<String> setPlan(@Param("id") UUID id, @Param("plan") String plan);

  /** Whether newly registered agents wait for an admin's acceptance by default (hub acceptance). */
  @Select(
      "select coalesce((select require_agent_acceptance from organizations where id = #{id}),"
          + " false)")
  boolean requiresAgentAcceptance(@Param("id") UUID id);

  @Update("update organizations set require_agent_acceptance = #{required} where id = #{id}")
  int setRequireAgentAcceptance(@Param("id") UUID id, @Param("required") boolean required);
}

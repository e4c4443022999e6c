package dev.gitopshq.activities.command;

import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** Approval-policy settings bound to clusters. */
@Mapper
public interface ApprovalSettingsMapper {
  String LIST = "dev.gitopshq.activities.store.StringListTypeHandler";

  @Insert(
      "insert into cluster_approval_policies (org_id, cluster_id, require_approval, auto_approve,"
          + " required_approvers, approver_roles, approver_teams, break_glass_allowed,"
          + " break_glass_roles, updated_by, updated_at) values (#{orgId}, #{clusterId},"
          + " #{requireApproval,typeHandler="
          + LIST
          + "}, #{autoApprove,typeHandler="
          + LIST
          + "},"
          + " #{requiredApprovers}, #{approverRoles,typeHandler="
          + LIST
          + "},"
          + " #{approverTeams,typeHandler="
          + LIST
          + "}, #{breakGlassAllowed},"
          + " #{breakGlassRoles,typeHandler="
          + LIST
          + "}, #{updatedBy}, #{updatedAt})"
          + " on conflict (org_id, cluster_id) do update set"
          + " require_approval = excluded.require_approval, auto_approve = excluded.auto_approve,"
          + " required_approvers = excluded.required_approvers,"
          + " approver_roles = excluded.approver_roles, approver_teams = excluded.approver_teams,"
          + " break_glass_allowed = excluded.break_glass_allowed,"
          + " break_glass_roles = excluded.break_glass_roles, updated_by = excluded.updated_by,"
          + " updated_at = excluded.updated_at")
  void upsert(ApprovalSettingsRow settings);

  @Select(
      "select org_id, cluster_id, require_approval, auto_approve, required_approvers,"
          + " approver_roles, approver_teams, break_glass_allowed, break_glass_roles, updated_by,"
          + " updated_at from cluster_approval_policies"
          + " where org_id = #{orgId} and cluster_id = #{clusterId}")
  Optional<ApprovalSettingsRow> find(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);
}

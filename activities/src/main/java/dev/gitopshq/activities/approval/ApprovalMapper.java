package dev.gitopshq.activities.approval;

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

/** The approvals inbox. */
@Mapper
public interface ApprovalMapper {
  String LIST = "dev.gitopshq.activities.store.StringListTypeHandler";
  String COLUMNS =
      "id, org_id, kind, subject_id, cluster_id, requester_id, requester_behind,"
          + " required_approvers,"
          + " approver_roles, approver_teams, summary, status, created_at, expires_at, closed_at";

  @Insert(
      "insert into approvals (id, org_id, kind, subject_id, cluster_id, requester_id,"
          + " requester_behind, required_approvers, approver_roles, approver_teams, summary, status, created_at,"
          + " expires_at) values (#{id}, #{orgId}, #{kind}, #{subjectId}, #{clusterId},"
          + " #{requesterId}, #{requesterBehind,typeHandler="
          + LIST
          + "}, #{requiredApprovers}, #{approverRoles,typeHandler="
          + LIST
          + "},"
          + " #{approverTeams,typeHandler="
          + LIST
          + "}, #{summary}, #{status}, #{createdAt},"
          + " #{expiresAt}) on conflict (id) do nothing")
  int insert(ApprovalRow approval);

  @Select("select " + COLUMNS + " from approvals where org_id = #{orgId} and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<ApprovalRow> findById(@Param("orgId") UUID orgId, @Param("id") String id);

  @Select(
      "select "
          + COLUMNS
          + " from approvals where org_id = #{orgId} and status = 'open'"
          + " order by created_at")
  List<ApprovalRow> open(@Param("orgId") UUID orgId);

  @Select(
      "select "
          + COLUMNS
          + " from approvals where org_id = #{orgId} and subject_id = #{subjectId}"
          + " order by created_at")
  List<ApprovalRow> forSubject(@Param("orgId") UUID orgId, @Param("subjectId") UUID subjectId);

  @Update(
      "update approvals set status = #{status}, closed_at = #{now}"
          + " where org_id = #{orgId} and id = #{id} and status = 'open'")
  int close(
      @Param("orgId") UUID orgId,
      @Param("id") String id,
      @Param("status") String status,
      @Param("now") Instant now);

  @Insert(
      "insert into approval_votes (org_id, approval_id, idx, member_id, member_name, approve,"
          + " comment, counted, why, at) values (#{orgId}, #{approvalId}, #{idx}, #{memberId},"
          + " #{memberName}, #{approve}, #{comment}, #{counted}, #{why}, #{at})"
          + " on conflict (approval_id, idx) do nothing")
  int insertVote(
      @Param("orgId") UUID orgId,
      @Param("approvalId") String approvalId,
      @Param("idx") int idx,
      @Param("memberId") String memberId,
      @Param("memberName") String memberName,
      @Param("approve") boolean approve,
      @Param("comment") String comment,
      @Param("counted") boolean counted,
      @Param("why") String why,
      @Param("at") Instant at);

  @Select(
      "select idx, member_id, member_name, approve, comment, counted, why, at"
          + " from approval_votes where org_id = #{orgId} and approval_id = #{approvalId}"
          + " order by idx")
  List<ApprovalVoteRow> votes(@Param("orgId") UUID orgId, @Param("approvalId") String approvalId);
}

package dev.gitopshq.activities.policy;

import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/**
 * The decisions a policy recorded on commands and deployments, newest first, per organization: the
 * approval, release and credentials policies' on the subjects' rows, the freeze policy's in {@code
 * freeze_decisions} (outcome {@code open}, {@code frozen} or {@code blocked}).
 */
@Mapper
public interface DecisionHistoryMapper {
  /** The latest {@code limit} decisions of policy {@code policy} in the organization. */
  @Select(
      "select * from ("
          + " select 'command' as kind, id as subject_id,"
          + " coalesce(decided_at, created_at) as at, policy_version,"
          + " decision_outcome as outcome, decision_reasons as reasons,"
          + " decision_input::text as input from commands"
          + " where org_id = #{orgId} and policy_name = #{policy} and decision_outcome is not null"
          + " union all"
          + " select 'deployment', id, coalesce(decided_at, created_at), policy_version,"
          + " decision_outcome, decision_reasons, decision_input::text from deployments"
          + " where org_id = #{orgId} and policy_name = #{policy} and decision_outcome is not null"
          + " union all"
          + " select subject_kind, subject_id, decided_at, policy_version, outcome, reasons,"
          + " decision_input::text from freeze_decisions"
          + " where org_id = #{orgId} and policy_name = #{policy}"
          + ") d order by at desc, subject_id desc limit #{limit}")
  List<RecordedDecisionRow> latest(
      @Param("orgId") UUID orgId, @Param("policy") String policy, @Param("limit") int limit);
}

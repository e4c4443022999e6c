package dev.gitopshq.activities.policy;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;

/**
 * The freeze policy's decisions about commands and deployments, with the input each was taken on
 * (V57), so a what-if of a freeze-policy draft replays them ({@link DecisionHistoryMapper}).
 */
@Mapper
public interface FreezeDecisionMapper {
  /**
   * Records a decision; a decision asked again for the same subject (an activity retried) replaces
   * it.
   *
   * @param kind {@code command} or {@code deployment}
   * @param outcome {@code open}, {@code frozen} (break-glass lets it through) or {@code blocked}
   * @param input the input document's JSON text
   */
  @Insert(
      "insert into freeze_decisions (org_id, subject_kind, subject_id, policy_name,"
          + " policy_version, outcome, reasons, decision_input, decided_at)"
          + " values (#{orgId}, #{kind}, #{subjectId}, #{policy}, #{version}, #{outcome},"
          + " #{reasons,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler},"
          + " cast(#{input} as jsonb), #{at})"
          + " on conflict (org_id, subject_kind, subject_id) do update set"
          + " policy_name = excluded.policy_name, policy_version = excluded.policy_version,"
          + " outcome = excluded.outcome, reasons = excluded.reasons,"
          + " decision_input = excluded.decision_input, decided_at = excluded.decided_at")
  void record(
      @Param("orgId") UUID orgId,
      @Param("kind") String kind,
      @Param("subjectId") UUID subjectId,
      @Param("policy") String policy,
      @Param("version") int version,
      @Param("outcome") String outcome,
      @Param("reasons") List<String> reasons,
      @Param("input") String input,
      @Param("at") Instant at);
}

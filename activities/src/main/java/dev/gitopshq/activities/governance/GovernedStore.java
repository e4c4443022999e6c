package dev.gitopshq.activities.governance;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.InsertProvider;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.UpdateProvider;

/**
 * The rows of a governed subject (a command, a deployment) that the governance activities write:
 * its status and detail, its policy decision and its numbered timeline. A subject's mapper extends
 * it and names its tables with {@link GovernedTables}; the SQL is {@link GovernedSql}'s, the same
 * for every subject.
 */
public interface GovernedStore {
  /** Adds timeline event {@code seq}; 0 when an earlier attempt already added it. */
  @InsertProvider(type = GovernedSql.class, method = "insertEvent")
  int insertEvent(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("seq") int seq,
      @Param("at") Instant at,
      @Param("status") String status,
      @Param("actor") String actor,
      @Param("detail") String detail);

  /** Sets the status and its detail; a terminal status also sets the finish time. */
  @UpdateProvider(type = GovernedSql.class, method = "updateStatus")
  int updateStatus(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("status") String status,
      @Param("detail") String detail,
      @Param("terminal") boolean terminal,
      @Param("now") Instant now);

  /** Says why the subject waits (e.g. OPA unreachable) without changing its status. */
  @UpdateProvider(type = GovernedSql.class, method = "updateDetail")
  int updateDetail(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("detail") String detail,
      @Param("now") Instant now);

  /**
   * Records the decision with the input document it was taken on ({@code input}: its JSON text,
   * null when it is too large to keep), which a what-if of a policy draft evaluates again.
   */
  @UpdateProvider(type = GovernedSql.class, method = "recordDecision")
  int recordDecision(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("policy") String policy,
      @Param("version") int version,
      @Param("sha256") String sha256,
      @Param("outcome") String outcome,
      @Param("reasons") List<String> reasons,
      @Param("input") String input,
      @Param("now") Instant now);
}

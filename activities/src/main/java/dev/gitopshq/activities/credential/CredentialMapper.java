package dev.gitopshq.activities.credential;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Credentials, their assignments and sync status; every query filters by organization. */
@Mapper
public interface CredentialMapper {
  String COLUMNS =
      "id, org_id, name, type, description, ciphertext, key_id, version, key_names, fingerprint,"
          + " created_by, created_at, updated_at";

  String ASSIGNMENT_COLUMNS =
      "a.org_id, a.credential_id, a.cluster_id, a.namespace, a.status, a.synced_version,"
          + " a.last_synced_at, a.error, a.assigned_at, a.updated_at, c.name as credential_name,"
          + " c.type as credential_type, c.version as credential_version, k.name as cluster_name,"
          + " a.policy_denied, a.decision_id";

  String ASSIGNMENT_FROM =
      " from credential_assignments a join credentials c on c.org_id = a.org_id and c.id ="
          + " a.credential_id join clusters k on k.org_id = a.org_id and k.id = a.cluster_id";

  @Insert(
      "insert into credentials (id, org_id, name, type, description, ciphertext, key_id, version,"
          + " key_names, fingerprint, created_by, created_at, updated_at) values (#{id}, #{orgId},"
          + " #{name}, #{type}, #{description}, #{ciphertext}, #{keyId}, #{version},"
          + " #{keyNames,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler},"
          + " #{fingerprint}, #{createdBy}, #{createdAt}, #{updatedAt})")
  void insert(CredentialRow row);

  @Select("select " + COLUMNS + " from credentials where org_id = #{orgId} order by name")
  List<CredentialRow> list(@Param("orgId") UUID orgId);

  @Select("select " + COLUMNS + " from credentials where org_id = #{orgId} and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<CredentialRow> find(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select("select " + COLUMNS + " from credentials where org_id = #{orgId} and name = #{name}")
  Optional<CredentialRow> findByName(@Param("orgId") UUID orgId, @Param("name") String name);

  /** Replaces the values (the caller sealed them for the same id) and bumps the version. */
  @Update(
      "update credentials set ciphertext = #{ciphertext}, key_id = #{keyId}, version = version + 1,"
          + " key_names = #{keyNames,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler},"
          + " fingerprint = #{fingerprint}, updated_at = #{now} where org_id = #{orgId} and id = #{id}")
  int replaceValues(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("ciphertext") byte[] ciphertext,
      @Param("keyId") String keyId,
      @Param("keyNames") List<String> keyNames,
      @Param("fingerprint") String fingerprint,
      @Param("now") Instant now);

  @Update(
      "update credentials set description = #{description}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id}")
  int describe(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("description") String description,
      @Param("now") Instant now);

  @Delete("delete from credentials where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  // ---- assignments ------------------------------------------------------------------------------

  @Select(
      "select "
          + ASSIGNMENT_COLUMNS
          + ASSIGNMENT_FROM
          + " where a.org_id = #{orgId} and a.credential_id = #{credentialId}"
          + " order by k.name, a.namespace")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<AssignmentRow> assignmentsOf(
      @Param("orgId") UUID orgId, @Param("credentialId") UUID credentialId);

  @Select(
      "select "
          + ASSIGNMENT_COLUMNS
          + ASSIGNMENT_FROM
          + " where a.org_id = #{orgId} and a.cluster_id = #{clusterId}"
          + " order by c.name, a.namespace")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<AssignmentRow> onCluster(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  @Insert(
      "insert into credential_assignments (org_id, credential_id, cluster_id, namespace, status,"
          + " assigned_at, updated_at) values (#{orgId}, #{credentialId}, #{clusterId},"
          + " #{namespace}, 'pending', #{now}, #{now}) on conflict do nothing")
  int assign(
      @Param("orgId") UUID orgId,
      @Param("credentialId") UUID credentialId,
      @Param("clusterId") UUID clusterId,
      @Param("namespace") String namespace,
      @Param("now") Instant now);

  @Delete(
      "delete from credential_assignments where org_id = #{orgId} and credential_id ="
          + " #{credentialId} and cluster_id = #{clusterId} and namespace = #{namespace}")
  int unassign(
      @Param("orgId") UUID orgId,
      @Param("credentialId") UUID credentialId,
      @Param("clusterId") UUID clusterId,
      @Param("namespace") String namespace);

  /**
   * Every namespace of a credential goes back to pending (its values changed), except those the
   * policy denied: they stay failed with its reasons until a decision allows them.
   */
  @Update(
      "update credential_assignments set status = 'pending', updated_at = #{now}"
          + " where org_id = #{orgId} and credential_id = #{credentialId} and not policy_denied")
  int pendingForCredential(
      @Param("orgId") UUID orgId,
      @Param("credentialId") UUID credentialId,
      @Param("now") Instant now);

  /**
   * The targets of a credential on a cluster get a round's decision: {@code denied} ones are failed
   * with {@code error} (the policy's reasons), allowed ones lose an earlier denial (back to
   * pending, error cleared) and keep their status otherwise. Every one is stamped with the round.
   */
  @Update(
      "update credential_assignments set decision_id = #{decisionId}, policy_denied = #{denied},"
          + " status = case when #{denied} then 'failed' when policy_denied then 'pending'"
          + " else status end,"
          + " error = case when #{denied} then #{error} when policy_denied then null else error end,"
          + " updated_at = case when #{denied} or policy_denied then #{now} else updated_at end"
          + " where org_id = #{orgId} and credential_id = #{credentialId}"
          + " and cluster_id = #{clusterId} and namespace = #{namespace}")
  int decide(
      @Param("orgId") UUID orgId,
      @Param("credentialId") UUID credentialId,
      @Param("clusterId") UUID clusterId,
      @Param("namespace") String namespace,
      @Param("decisionId") UUID decisionId,
      @Param("denied") boolean denied,
      @Param("error") String error,
      @Param("now") Instant now);

  /** The targets a round decided and allowed go to pending: it is about to send them. */
  @Update(
      "update credential_assignments set status = 'pending', updated_at = #{now}"
          + " where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and decision_id = #{decisionId} and not policy_denied")
  int pendingForDecision(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("decisionId") UUID decisionId,
      @Param("now") Instant now);

  /** The targets of one credential a round decided and allowed go to pending: it is sent now. */
  @Update(
      "update credential_assignments set status = 'pending', updated_at = #{now}"
          + " where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and credential_id = #{credentialId} and decision_id = #{decisionId}"
          + " and not policy_denied")
  int pendingForCredentialDecision(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("credentialId") UUID credentialId,
      @Param("decisionId") UUID decisionId,
      @Param("now") Instant now);

  /**
   * Marks the targets of one credential a round allowed failed (its job was not sent, e.g. no
   * stream took it in time); the denied ones keep the policy's reasons.
   */
  @Update(
      "update credential_assignments set status = 'failed', error = #{error}, updated_at = #{now}"
          + " where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and credential_id = #{credentialId} and decision_id = #{decisionId}"
          + " and not policy_denied")
  int failCredentialDecision(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("credentialId") UUID credentialId,
      @Param("decisionId") UUID decisionId,
      @Param("error") String error,
      @Param("now") Instant now);

  /**
   * Records an agent's report for one namespace, unless the credential changed since the version it
   * applied (a newer sync is then on its way and decides) or the policy denied the target since.
   */
  @Update(
      "update credential_assignments a set status = #{status}, error = #{error},"
          + " synced_version = case when #{status} = 'synced' then #{version} else a.synced_version end,"
          + " last_synced_at = case when #{status} = 'synced' then #{now} else a.last_synced_at end,"
          + " updated_at = #{now} from credentials c where a.org_id = #{orgId}"
          + " and a.credential_id = #{credentialId} and a.cluster_id = #{clusterId}"
          + " and a.namespace = #{namespace} and c.org_id = a.org_id and c.id = a.credential_id"
          + " and c.version = #{version} and not a.policy_denied")
  int report(
      @Param("orgId") UUID orgId,
      @Param("credentialId") UUID credentialId,
      @Param("clusterId") UUID clusterId,
      @Param("namespace") String namespace,
      @Param("version") long version,
      @Param("status") String status,
      @Param("error") String error,
      @Param("now") Instant now);

  /**
   * Clusters with a target still pending since before {@code before} (a sync or its answer was
   * lost, e.g. the stream broke in between), as (org id, cluster id) pairs: the sweep re-syncs
   * them.
   */
  @Select(
      "select distinct org_id, cluster_id from credential_assignments where status = 'pending'"
          + " and updated_at < #{before} limit 1000")
  List<ClusterRef> stalePending(@Param("before") Instant before);

  /** The organization's clusters that have a credential assigned (a new policy re-decides them). */
  @Select(
      "select distinct cluster_id from credential_assignments where org_id = #{orgId}"
          + " limit 10000")
  List<UUID> clustersWithAssignments(@Param("orgId") UUID orgId);

  /**
   * Marks the targets a round allowed failed, e.g. when the cluster's agent lacks the capability;
   * the denied ones keep the policy's reasons.
   */
  @Update(
      "update credential_assignments set status = 'failed', error = #{error}, updated_at = #{now}"
          + " where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and decision_id = #{decisionId} and not policy_denied")
  int failDecision(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("decisionId") UUID decisionId,
      @Param("error") String error,
      @Param("now") Instant now);
}

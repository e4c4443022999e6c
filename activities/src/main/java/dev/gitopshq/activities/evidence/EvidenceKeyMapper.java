package dev.gitopshq.activities.evidence;

import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/**
 * The evidence_keys table (the hub's own signing keys, not organization data) and the reads an
 * evidence document needs beyond the subjects' own mappers.
 */
@Mapper
public interface EvidenceKeyMapper {
  String COLUMNS = "id, algorithm, public_key, private_key_sealed, created_at";

  /** Serializes first-use key creation across replicas until the transaction ends. */
  @Select("select 1 from pg_advisory_xact_lock(7021, 0)")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  int lock();

  /** Newest first: the first one signs. */
  @Select("select " + COLUMNS + " from evidence_keys order by created_at desc, id")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<EvidenceKeyRow> list();

  @Insert(
      "insert into evidence_keys (id, algorithm, public_key, private_key_sealed, created_at)"
          + " values (#{id}, #{algorithm}, #{publicKey}, #{privateKeySealed}, #{createdAt})")
  void insert(EvidenceKeyRow row);

  /** The generations of a project's configuration revision (one, unless retried). */
  @Select(
      "select revision, config_commit, commit as rendered_commit, status from generations"
          + " where org_id = #{orgId} and project_id = #{projectId} and revision = #{revision}"
          + " order by started_at")
  List<GenerationCommitRow> generations(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("revision") long revision);
}

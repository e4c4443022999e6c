package dev.gitopshq.activities.audit;

import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** The audit_log table. Insert-only: the table's trigger refuses updates and deletes. */
@Mapper
public interface AuditMapper {
  String COLUMNS =
      "seq, org_id, at, actor_type, actor_id, actor_name, action, target_type, target_id,"
          + " details, prev_hash, hash";

  /**
   * Serializes appends per organization until the transaction ends, so each entry links to the one
   * before it even under concurrent writers.
   */
  @Select("select 1 from pg_advisory_xact_lock(7001, hashtext(#{orgId}::text))")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  int lockChain(@Param("orgId") UUID orgId);

  @Select("select hash from audit_log where org_id = #{orgId} order by seq desc limit 1")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  String lastHash(@Param("orgId") UUID orgId);

  @Insert(
      "insert into audit_log (org_id, at, actor_type, actor_id, actor_name, action, target_type,"
          + " target_id, details, prev_hash, hash) values (#{orgId}, #{at}, #{actorType},"
          + " #{actorId}, #{actorName}, #{action}, #{targetType}, #{targetId}, #{details},"
          + " #{prevHash}, #{hash})")
  void insert(AuditEntry entry);

  @Select({
    "<script>",
    "select " + COLUMNS + " from audit_log where org_id = #{orgId}",
    "<if test='q.actor != null'> and (actor_id = #{q.actor} or actor_name = #{q.actor})</if>",
    "<if test='q.action != null'> and action = #{q.action}</if>",
    "<if test='q.target != null'> and target_id = #{q.target}</if>",
    "<if test='q.from != null'> and at &gt;= #{q.from}</if>",
    "<if test='q.to != null'> and at &lt; #{q.to}</if>",
    "<if test='q.beforeSeq != null'> and seq &lt; #{q.beforeSeq}</if>",
    "order by seq desc limit #{q.limit}",
    "</script>"
  })
  List<AuditEntry> search(@Param("orgId") UUID orgId, @Param("q") AuditQuery query);

  /** The organization's chain in order, {@code limit} entries after {@code afterSeq}. */
  @Select(
      "select "
          + COLUMNS
          + " from audit_log where org_id = #{orgId} and seq > #{afterSeq}"
          + " order by seq limit #{limit}")
  List<AuditEntry> chain(
      @Param("orgId") UUID orgId, @Param("afterSeq") long afterSeq, @Param("limit") int limit);

  /** The organization's entries about any of these targets, oldest first, at most {@code limit}. */
  @Select({
    "<script>",
    "select " + COLUMNS + " from audit_log where org_id = #{orgId} and target_id in",
    "<foreach item='t' collection='targets' open='(' separator=',' close=')'>#{t}</foreach>",
    "order by seq limit #{limit}",
    "</script>"
  })
  List<AuditEntry> forTargets(
      @Param("orgId") UUID orgId,
      @Param("targets") List<String> targets,
      @Param("limit") int limit);

  /** The links of the organization's chain from {@code fromSeq} to {@code toSeq}, in order. */
  @Select(
      "select seq, prev_hash, hash from audit_log where org_id = #{orgId} and seq between"
          + " #{fromSeq} and #{toSeq} order by seq limit #{limit}")
  List<AuditLink> links(
      @Param("orgId") UUID orgId,
      @Param("fromSeq") long fromSeq,
      @Param("toSeq") long toSeq,
      @Param("limit") int limit);
}

package dev.gitopshq.activities.agentcert;

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

/** Organizations' agent CAs and the client certificates they issued (V54). */
@Mapper
public interface AgentCertificateMapper {
  String COLUMNS =
      "id, org_id, cluster_id, serial, not_before, not_after, created_at, revoked_at, revoked_by";

  /** A stored CA: its certificate and sealed key. */
  record StoredCa(String certificatePem, byte[] keySealed) {}

  @Select("select certificate_pem, key_sealed from agent_cas where org_id = #{orgId}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<StoredCa> findCa(@Param("orgId") UUID orgId);

  /** Stores a new CA unless another replica stored one first; returns 1 when this one won. */
  @Insert(
      "insert into agent_cas (org_id, certificate_pem, key_sealed, created_at)"
          + " values (#{orgId}, #{pem}, #{sealed}, #{now}) on conflict (org_id) do nothing")
  int insertCa(
      @Param("orgId") UUID orgId,
      @Param("pem") String pem,
      @Param("sealed") byte[] sealed,
      @Param("now") Instant now);

  @Insert(
      "insert into agent_certificates (id, org_id, cluster_id, serial, not_before, not_after,"
          + " created_at) values (#{id}, #{orgId}, #{clusterId}, #{serial}, #{notBefore},"
          + " #{notAfter}, #{createdAt})")
  void insert(AgentCertificateRow row);

  @Select(
      "select "
          + COLUMNS
          + " from agent_certificates where org_id = #{orgId} and serial = #{serial}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<AgentCertificateRow> findBySerial(
      @Param("orgId") UUID orgId, @Param("serial") String serial);

  /** The cluster's certificates, newest first. */
  @Select(
      "select "
          + COLUMNS
          + " from agent_certificates where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " order by created_at desc, id limit #{limit}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<AgentCertificateRow> list(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("limit") int limit);

  /** Revokes every unrevoked certificate of the cluster; returns their serials. */
  @Select(
      "update agent_certificates set revoked_at = #{now}, revoked_by = #{by}"
          + " where org_id = #{orgId} and cluster_id = #{clusterId} and revoked_at is null"
          + " returning serial")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<String> revokeCluster(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("by") String by,
      @Param("now") Instant now);

  /** Revokes one certificate of the cluster by serial; returns 1 when it was live. */
  @Update(
      "update agent_certificates set revoked_at = #{now}, revoked_by = #{by}"
          + " where org_id = #{orgId} and cluster_id = #{clusterId} and serial = #{serial}"
          + " and revoked_at is null")
  int revoke(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("serial") String serial,
      @Param("by") String by,
      @Param("now") Instant now);

  /** Of these certificate ids, the ones neither revoked nor expired. */
  @Select(
      "select id from agent_certificates where id = any(#{ids,typeHandler="
          + "dev.gitopshq.activities.sqltypes.UuidArrayTypeHandler}) and revoked_at is null"
          + " and not_after > #{now}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<UUID> stillValid(@Param("ids") List<UUID> ids, @Param("now") Instant now);

  @Select(
      "select coalesce((select require_agent_certificate from organizations where id = #{id}),"
          + " false)")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  boolean requiresCertificate(@Param("id") UUID orgId);

  @Update("update organizations set require_agent_certificate = #{required} where id = #{id}")
  int setRequireCertificate(@Param("id") UUID orgId, @Param("required") boolean required);
}

package dev.gitopshq.activities.delivery;

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

/** Projects. */
@Mapper
public interface ProjectMapper {
  String COLUMNS =
      "id, org_id, name, description, config_revision, generated_revision,"
          + " webhook_secret is not null as has_webhook_secret, created_by, created_at, updated_at";

  @Insert(
      "insert into projects (id, org_id, name, description, config_revision, generated_revision,"
          + " created_by, created_at, updated_at) values (#{id}, #{orgId}, #{name}, #{description},"
          + " #{configRevision}, #{generatedRevision}, #{createdBy}, #{createdAt}, #{updatedAt})")
  void insert(ProjectRow row);

  @Select("select " + COLUMNS + " from projects where org_id = #{orgId} order by name")
  List<ProjectRow> list(@Param("orgId") UUID orgId);

  @Select("select " + COLUMNS + " from projects where org_id = #{orgId} and id = #{id}")
  Optional<ProjectRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select("select " + COLUMNS + " from projects where org_id = #{orgId} and name = #{name}")
  Optional<ProjectRow> findByName(@Param("orgId") UUID orgId, @Param("name") String name);

  /** Locks the project row until the transaction ends: one configuration change at a time. */
  @Select("select " + COLUMNS + " from projects where org_id = #{orgId} and id = #{id} for update")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<ProjectRow> lock(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** Locks every project of the organization, in id order (so two such lockers never deadlock). */
  @Select("select " + COLUMNS + " from projects where org_id = #{orgId} order by id for update")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<ProjectRow> lockAll(@Param("orgId") UUID orgId);

  @Update(
      "update projects set description = #{description}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id}")
  int setDescription(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("description") String description,
      @Param("now") Instant now);

  /** Moves the configuration revision on, only from the revision the caller read. */
  @Update(
      "update projects set config_revision = #{revision}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id} and config_revision = #{expected}")
  int setConfigRevision(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("expected") long expected,
      @Param("revision") long revision,
      @Param("now") Instant now);

  @Select(
      "select org_id, id as project_id, name as project, webhook_secret from projects"
          + " where org_id = #{orgId} and id = #{id}")
  Optional<WebhookSecretRow> webhookSecret(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /**
   * Every project of this name in any organization, with its encrypted webhook secret. The one
   * query without an organization: the image-update webhook authenticates by the secret, so the
   * organization is known only once a signature verifies.
   */
  @Select(
      "select org_id, id as project_id, name as project, webhook_secret from projects"
          + " where name = #{name} order by id")
  List<WebhookSecretRow> webhookSecretsByName(@Param("name") String name);

  /** Records a webhook delivery; 0 when the project already had one with this id (a replay). */
  @Insert(
      "insert into webhook_deliveries (org_id, project_id, delivery_id, received_at)"
          + " values (#{orgId}, #{projectId}, #{deliveryId}, #{now}) on conflict do nothing")
  int recordDelivery(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("deliveryId") String deliveryId,
      @Param("now") Instant now);

  /** Forgets the deliveries received before {@code before}: the timestamp check refuses those. */
  @Delete(
      "delete from webhook_deliveries where org_id = #{orgId} and project_id = #{projectId}"
          + " and received_at < #{before}")
  int forgetDeliveries(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("before") Instant before);

  @Update(
      "update projects set webhook_secret = #{secret}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id}")
  int setWebhookSecret(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("secret") byte[] secret,
      @Param("now") Instant now);

  /** Deletes the project and everything of it (foreign keys cascade). */
  @Delete("delete from projects where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);
}

package dev.gitopshq.activities.notify;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** Where each organization's notifications go. */
@Mapper
public interface NotificationSettingsMapper {
  /**
   * An organization's webhook.
   *
   * @param secretSealed the HMAC secret, sealed with the hub's key ({@link NotificationTargets})
   * @param events the events to send; empty means all
   */
  record Row(
      UUID orgId,
      String webhookUrl,
      byte[] secretSealed,
      List<String> events,
      Instant updatedAt,
      String updatedBy) {}

  @Select(
      "select org_id, webhook_url, secret_sealed, events, updated_at, updated_by"
          + " from org_notifications where org_id = #{orgId}")
  Optional<Row> find(@Param("orgId") UUID orgId);

  @Insert(
      "insert into org_notifications (org_id, webhook_url, secret_sealed, events, updated_at,"
          + " updated_by) values (#{orgId}, #{webhookUrl}, #{secretSealed},"
          + " #{events,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler},"
          + " #{updatedAt}, #{updatedBy})"
          + " on conflict (org_id) do update set webhook_url = excluded.webhook_url,"
          + " secret_sealed = excluded.secret_sealed, events = excluded.events,"
          + " updated_at = excluded.updated_at, updated_by = excluded.updated_by")
  void upsert(Row row);

  @Delete("delete from org_notifications where org_id = #{orgId}")
  int delete(@Param("orgId") UUID orgId);
}

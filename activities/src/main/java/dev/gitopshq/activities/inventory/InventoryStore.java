package dev.gitopshq.activities.inventory;

import dev.gitopshq.agent.v1.InventoryDelta;
import dev.gitopshq.agent.v1.InventoryObject;
import dev.gitopshq.agent.v1.InventorySnapshot;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Keeps each cluster's inventory as its agent reports it. A snapshot's parts are written as they
 * come; its last part removes whatever the snapshot did not carry, in the same transaction. Deltas
 * change single objects. Everything an agent sends is bounded before it is written: objects per
 * message, the length of every field and the number of labels; objects without identity are
 * skipped.
 */
public class InventoryStore {
  /** Objects per message the hub accepts (the agent sends at most 500). */
  public static final int MAX_OBJECTS_PER_MESSAGE = 1_000;

  /**
   * The snapshot id of rows a delta wrote. The agent sends a snapshot's parts back to back and its
   * deltas only after, so the next finished snapshot keeps such a row exactly when it carries it.
   */
  static final String DELTA = "delta";

  private final InventoryMapper inventory;
  private final TransactionTemplate tx;
  private final Clock clock;

  public InventoryStore(InventoryMapper inventory, TransactionTemplate tx, Clock clock) {
    this.inventory = inventory;
    this.tx = tx;
    this.clock = clock;
  }

  /** What a message changed; {@code skipped} objects lacked a uid, kind or name. */
  public record Applied(int written, int removed, int skipped) {}

  /** Writes one part of a snapshot; the last part makes it the cluster's inventory. */
  public Applied snapshot(UUID orgId, UUID clusterId, InventorySnapshot part) {
    requireBounded(part.getObjectsCount());
    String snapshotId = bounded(part.getSnapshotId(), 64);
    if (snapshotId.isEmpty()) {
      throw new IllegalArgumentException("inventory snapshot without a snapshot_id");
    }
    Instant now = clock.instant();
    List<ResourceRow> rows = new ArrayList<>();
    int skipped = rows(orgId, clusterId, part.getObjectsList(), snapshotId, now, rows);
    return tx.execute(
        t -> {
          int written = rows.isEmpty() ? 0 : inventory.upsert(rows);
          int removed = 0;
          if (part.getLast()) {
            removed = inventory.deleteOutside(orgId, clusterId, snapshotId);
            inventory.finishSnapshot(orgId, clusterId, snapshotId, now);
          }
          return new Applied(written, removed, skipped);
        });
  }

  /** Applies changes since the last snapshot. */
  public Applied delta(UUID orgId, UUID clusterId, InventoryDelta delta) {
    requireBounded(delta.getUpsertsCount() + delta.getDeletedUidsCount());
    Instant now = clock.instant();
    List<ResourceRow> rows = new ArrayList<>();
    int skipped = rows(orgId, clusterId, delta.getUpsertsList(), DELTA, now, rows);
    List<String> gone =
        delta.getDeletedUidsList().stream()
            .filter(u -> !u.isEmpty() && u.length() <= 64)
            .distinct()
            .toList();
    return tx.execute(
        t -> {
          int written = rows.isEmpty() ? 0 : inventory.upsert(rows);
          int removed = gone.isEmpty() ? 0 : inventory.delete(orgId, clusterId, gone);
          inventory.touched(orgId, clusterId, now);
          return new Applied(written, removed, skipped);
        });
  }

  public Optional<InventoryRow> find(UUID orgId, UUID clusterId) {
    return inventory.find(orgId, clusterId);
  }

  public List<KindCount> counts(UUID orgId, UUID clusterId) {
    return inventory.counts(orgId, clusterId);
  }

  public List<ResourceRow> list(UUID orgId, UUID clusterId, ResourceQuery query) {
    return inventory.list(orgId, clusterId, query);
  }

  private static void requireBounded(int count) {
    if (count > MAX_OBJECTS_PER_MESSAGE) {
      throw new IllegalArgumentException(
          "an inventory message may carry at most " + MAX_OBJECTS_PER_MESSAGE + " objects");
    }
  }

  /** Adds a row per usable object (the last of duplicates wins); the number skipped. */
  private static int rows(
      UUID orgId,
      UUID clusterId,
      List<InventoryObject> objects,
      String snapshotId,
      Instant now,
      List<ResourceRow> out) {
    Map<String, ResourceRow> byUid = new LinkedHashMap<>();
    int skipped = 0;
    for (InventoryObject o : objects) {
      if (o.getUid().isEmpty()
          || o.getUid().length() > 64
          || o.getKind().isEmpty()
          || o.getName().isEmpty()) {
        skipped++;
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      o.getLabelsMap().entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .limit(64)
          .forEach(e -> labels.put(bounded(e.getKey(), 317), bounded(e.getValue(), 253)));
      Instant created =
          o.hasCreatedAt()
              ? Instant.ofEpochSecond(
                  o.getCreatedAt().getSeconds(),
                  Math.max(0, Math.min(999_999_999, o.getCreatedAt().getNanos())))
              : null;
      byUid.put(
          o.getUid(),
          new ResourceRow(
              orgId,
              clusterId,
              o.getUid(),
              bounded(o.getGroup(), 253),
              bounded(o.getVersion(), 63),
              bounded(o.getKind(), 63),
              bounded(o.getNamespace(), 63),
              bounded(o.getName(), 253),
              labels,
              bounded(o.getStatus(), 256),
              health(o.getHealth()),
              created,
              bounded(o.getResourceVersion(), 64),
              snapshotId,
              now));
    }
    out.addAll(byUid.values());
    return skipped;
  }

  private static String health(String h) {
    return switch (h) {
      case "Healthy", "Progressing", "Degraded", "Suspended", "Missing" -> h;
      default -> "Unknown";
    };
  }

  /** Cut to {@code max} characters, without NUL (PostgreSQL text refuses it). */
  private static String bounded(String s, int max) {
    String clean = s.indexOf('\0') < 0 ? s : s.replace("\0", "");
    return clean.length() <= max ? clean : clean.substring(0, max);
  }
}

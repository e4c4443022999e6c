package dev.gitopshq.agent.inventory;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.InventoryDelta;
import dev.gitopshq.agent.v1.InventoryObject;
import dev.gitopshq.agent.v1.InventorySnapshot;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the hub knows of the cluster's inventory, and what it still has to be told.
 *
 * <p>The agent keeps one summary per object (a few hundred bytes each) and the changes since the
 * last message, coalesced per object, so a Pod that changes ten times between two flushes is sent
 * once. {@link #flush()} sends a whole snapshot when one is due (after every Welcome, on the hub's
 * request, and whenever the pending changes outgrow {@link #MAX_PENDING} or a send fails) and the
 * pending changes otherwise, both in messages of at most {@link #PART_SIZE} objects. A snapshot
 * waits until every informer has listed its kind once, so the hub never replaces a full inventory
 * with a partial one.
 */
public final class InventoryPublisher {
  private static final Logger log = LoggerFactory.getLogger(InventoryPublisher.class);

  /** Objects per message. */
  public static final int PART_SIZE = 500;

  /** Pending changes beyond this are dropped for a snapshot instead. */
  public static final int MAX_PENDING = 10_000;

  private static final InventoryObject DELETED = InventoryObject.getDefaultInstance();

  private final Predicate<AgentMessage> send;
  private final Clock clock;
  private final Map<String, InventoryObject> objects = new ConcurrentHashMap<>();
  private final Object lock = new Object();
  private Map<String, InventoryObject> pending = new LinkedHashMap<>();
  private boolean snapshotDue = true;
  private volatile BooleanSupplier synced = () -> false;
  private long snapshots;
  private long deltas;

  /**
   * @param send sends a message on the current Connect stream; false when there is none
   */
  public InventoryPublisher(Predicate<AgentMessage> send, Clock clock) {
    this.send = send;
    this.clock = clock;
  }

  /** Tells the publisher how to know that every informer has listed its kind once. */
  void watching(BooleanSupplier synced) {
    this.synced = synced;
  }

  /** An object was added or changed. */
  public void upsert(InventoryObject o) {
    if (o.getUid().isEmpty()) {
      return;
    }
    objects.put(o.getUid(), o);
    pend(o.getUid(), o);
  }

  /** An object is gone. */
  public void delete(String uid) {
    if (uid == null || objects.remove(uid) == null) {
      return;
    }
    pend(uid, DELETED);
  }

  private void pend(String uid, InventoryObject o) {
    synchronized (lock) {
      if (snapshotDue) {
        return; // The snapshot will carry it.
      }
      pending.put(uid, o);
      if (pending.size() > MAX_PENDING) {
        log.warn(
            "inventory: more than {} changes pending; sending a snapshot instead", MAX_PENDING);
        snapshotDue();
      }
    }
  }

  /** A new stream was welcomed, or the hub asked: the next flush sends a whole snapshot. */
  public void snapshotDue() {
    synchronized (lock) {
      snapshotDue = true;
      pending = new LinkedHashMap<>();
    }
  }

  /** How many objects the agent knows. */
  public int size() {
    return objects.size();
  }

  /** Snapshots and deltas sent so far. */
  public long snapshotsSent() {
    return snapshots;
  }

  public long deltasSent() {
    return deltas;
  }

  /** Sends what is due; called on one thread every second or so. */
  public void flush() {
    boolean snapshot;
    Map<String, InventoryObject> changes;
    synchronized (lock) {
      snapshot = snapshotDue;
      if (snapshot && !synced.getAsBoolean()) {
        return;
      }
      changes = pending;
      pending = new LinkedHashMap<>();
      snapshotDue = false;
    }
    boolean sent = snapshot ? sendSnapshot() : sendDelta(changes);
    if (!sent) {
      // Not connected, or the stream broke: the next Welcome brings a snapshot anyway.
      snapshotDue();
    }
  }

  private boolean sendSnapshot() {
    List<InventoryObject> all = new ArrayList<>(objects.values());
    String id = UUID.randomUUID().toString();
    Timestamp takenAt = timestamp(clock.instant());
    int parts = Math.max(1, (all.size() + PART_SIZE - 1) / PART_SIZE);
    for (int part = 0; part < parts; part++) {
      List<InventoryObject> slice =
          all.subList(part * PART_SIZE, Math.min(all.size(), (part + 1) * PART_SIZE));
      InventorySnapshot message =
          InventorySnapshot.newBuilder()
              .setSnapshotId(id)
              .setPart(part)
              .setLast(part == parts - 1)
              .addAllObjects(slice)
              .setTakenAt(takenAt)
              .build();
      if (!send.test(AgentMessage.newBuilder().setInventorySnapshot(message).build())) {
        return false;
      }
    }
    snapshots++;
    log.info("inventory: sent a snapshot of {} objects in {} parts", all.size(), parts);
    return true;
  }

  private boolean sendDelta(Map<String, InventoryObject> changes) {
    if (changes.isEmpty()) {
      return true;
    }
    InventoryDelta.Builder delta = InventoryDelta.newBuilder();
    int inMessage = 0;
    for (Map.Entry<String, InventoryObject> e : changes.entrySet()) {
      if (e.getValue() == DELETED) {
        delta.addDeletedUids(e.getKey());
      } else {
        delta.addUpserts(e.getValue());
      }
      if (++inMessage == PART_SIZE) {
        if (!sendDelta(delta)) {
          return false;
        }
        delta = InventoryDelta.newBuilder();
        inMessage = 0;
      }
    }
    return inMessage == 0 || sendDelta(delta);
  }

  private boolean sendDelta(InventoryDelta.Builder delta) {
    boolean ok =
        send.test(
            AgentMessage.newBuilder()
                .setInventoryDelta(delta.setSentAt(timestamp(clock.instant())))
                .build());
    if (ok) {
      deltas++;
    }
    return ok;
  }

  private static Timestamp timestamp(Instant i) {
    return Timestamp.newBuilder().setSeconds(i.getEpochSecond()).setNanos(i.getNano()).build();
  }
}

package dev.gitopshq.activities.inventory;

import java.time.Instant;
import java.util.UUID;

/**
 * A cluster's inventory as a whole.
 *
 * @param snapshotAt when the agent took the last finished snapshot
 * @param asOf when the agent last reported (a snapshot or a delta)
 */
public record InventoryRow(
    UUID orgId, UUID clusterId, String snapshotId, Instant snapshotAt, Instant asOf, int objects) {}

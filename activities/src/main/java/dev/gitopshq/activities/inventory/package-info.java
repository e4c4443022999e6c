/**
 * The clusters' inventories as their agents report them: the latest summary per object, replaced by
 * every finished snapshot and changed by deltas in between.
 */
package dev.gitopshq.activities.inventory;

/**
 * The cluster's inventory (capability {@code observe}): shared informers over the kinds an operator
 * looks at, reduced to {@code InventoryObject} summaries (identity, labels, a derived status and
 * health; never a Secret's or ConfigMap's data), sent to the hub as a snapshot after every Welcome
 * and as coalesced deltas afterwards.
 */
package dev.gitopshq.agent.inventory;

/**
 * A cluster's inventory over REST: the namespaces with their counts per kind, the resources with a
 * derived status, and an on-demand resync through the agent (capability {@code observe}).
 */
package dev.gitopshq.hub.inventory;

/**
 * Log sessions for the hub (capability {@code diagnostics.read}): a container's log read with
 * Fabric8's log watch, cut into whole lines of bounded length, and sent only as far as the hub has
 * granted credit, so that no buffer on either side grows with a slow reader.
 */
package dev.gitopshq.agent.logs;

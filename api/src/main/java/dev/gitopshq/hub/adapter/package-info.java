/**
 * The hub wires every binding's runtime adapter: starting the per-cluster wiring workflow when a
 * project's configuration, a deploy branch or an agent's connection changes, and {@code
 * /api/v2/clusters/{id}/adapters}.
 */
package dev.gitopshq.hub.adapter;

/**
 * Forwarding between hub replicas: a request that needs an agent live (a live read, an inventory
 * refresh, a log stream) may land on any replica, and the one that does not hold the agent's stream
 * forwards it over {@code hub.v1.HubPeer} to the one that does, authenticated with the
 * installation's peer key. See docs/architecture.md, "Any replica serves any request".
 */
package dev.gitopshq.hub.peer;

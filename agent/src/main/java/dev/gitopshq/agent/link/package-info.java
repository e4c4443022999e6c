/**
 * The agent's link to the hub over {@code agent.v1.AgentHub}: the channel, Register, the Connect
 * stream with heartbeats, and reconnecting with backoff.
 */
package dev.gitopshq.agent.link;

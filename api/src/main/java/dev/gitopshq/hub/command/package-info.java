/**
 * Commands over REST: {@code /api/v2/clusters/{id}/commands}, {@code /api/v2/commands/{id}} and the
 * cluster's own approval policy. Each command is a workflow whose id is the command id; the
 * controllers start, signal and read, never execute.
 */
package dev.gitopshq.hub.command;

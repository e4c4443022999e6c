/**
 * The port through which activities reach agents. The hub's gRPC gateway implements it; the
 * activities only park work in PostgreSQL and nudge the port, so any replica can deliver.
 */
package dev.gitopshq.activities.gateway;

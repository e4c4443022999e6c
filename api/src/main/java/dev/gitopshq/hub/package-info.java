/**
 * The hub application, split by feature: {@code cluster}, {@code member}, {@code audit}, {@code
 * features}, {@code gateway} (the agent gRPC gateway), plus {@code security}, {@code web} (errors
 * and validation), {@code temporal} (worker wiring), {@code bootstrap} and {@code config}.
 * Controllers start or signal workflows and read state; they never talk to a cluster.
 */
package dev.gitopshq.hub;

/**
 * Drift findings: the REST API ({@link DriftController}), the checks' runner on the replica that
 * holds the cluster's agent stream ({@link DriftRunner}), and the governed resolve-drift command
 * ({@link DriftService#resolve}).
 */
package dev.gitopshq.hub.drift;

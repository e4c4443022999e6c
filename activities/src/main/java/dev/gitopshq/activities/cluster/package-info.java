/**
 * Clusters and their agent tokens: the rows the registration, rotation and gateway code share, and
 * the status derived from the last heartbeat ({@link
 * dev.gitopshq.activities.cluster.ClusterStatus}).
 */
package dev.gitopshq.activities.cluster;

/** Cluster registration and inventory over REST: {@code /api/v2/clusters}. */
package dev.gitopshq.hub.cluster;

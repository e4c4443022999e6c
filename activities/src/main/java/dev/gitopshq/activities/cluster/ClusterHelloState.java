package dev.gitopshq.activities.cluster;

/**
 * What an agent's Hello reads from its cluster's row ({@link ClusterMapper#helloState}).
 *
 * @param pendingAcceptance the cluster waits for an admin's decision
 * @param rotationScheduled whether the cluster has its token rotation schedule (null: unknown)
 */
public record ClusterHelloState(boolean pendingAcceptance, Boolean rotationScheduled) {}

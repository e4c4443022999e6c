package dev.gitopshq.hub.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Where the Temporal frontend is: the dev server for {@code make run}, a Temporal cluster in
 * production.
 *
 * @param address host:port of the frontend (TEMPORAL_ADDRESS)
 * @param namespace the namespace the hub's workflows run in (TEMPORAL_NAMESPACE)
 * @param workflowCacheSize how many workflow executions a replica keeps in memory between tasks
 *     (sticky execution); 0 turns stickiness off, so every task may go to any replica
 */
@ConfigurationProperties("temporal")
public record TemporalProperties(String address, String namespace, Integer workflowCacheSize) {}

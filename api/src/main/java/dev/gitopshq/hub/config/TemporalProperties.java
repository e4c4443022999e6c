package dev.gitopshq.hub.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Where the Temporal frontend is: the dev server for {@code make run}, a Temporal cluster in
 * production.
 *
 * @param address host:port of the frontend (TEMPORAL_ADDRESS)
 * @param namespace the namespace the hub's workflows run in (TEMPORAL_NAMESPACE)
 */
@ConfigurationProperties("temporal")
public record TemporalProperties(String address, String namespace) {}

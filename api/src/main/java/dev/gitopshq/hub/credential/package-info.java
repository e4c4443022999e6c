/**
 * Credential sync ({@code credential.sync}): the organization's credentials at {@code
 * /api/v2/credentials}, their assignments to clusters and namespaces, the per-cluster status at
 * {@code /api/v2/clusters/{id}/credentials}, and their delivery down agents' streams.
 */
package dev.gitopshq.hub.credential;

/**
 * Certificate identity for agents over REST: the organization's agent CA and policy ({@code
 * /api/v2/agent-ca}) and each cluster's client certificates ({@code
 * /api/v2/clusters/{id}/certificate}).
 */
package dev.gitopshq.hub.agentcert;

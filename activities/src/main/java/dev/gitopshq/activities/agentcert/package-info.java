/**
 * Certificate identity for agents: each organization's CA (its key sealed like other secrets), the
 * client certificates it signs from agents' CSRs, and their revocation.
 */
package dev.gitopshq.activities.agentcert;

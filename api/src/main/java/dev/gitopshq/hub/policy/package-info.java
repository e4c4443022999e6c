/**
 * Policies in the hub: the {@code /api/v2/policies} REST API (read, publish, dry-run), the OPA
 * client and policy store wiring, and {@link dev.gitopshq.hub.policy.PolicySync}, which stores the
 * shipped defaults and keeps OPA loaded with every active version, also after OPA restarts.
 */
package dev.gitopshq.hub.policy;

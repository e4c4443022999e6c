/**
 * Policies and OPA: {@link dev.gitopshq.activities.policy.OpaClient} talks to OPA's REST API,
 * {@link dev.gitopshq.activities.policy.PolicyRepository} stores versioned Rego in PostgreSQL, and
 * {@link dev.gitopshq.activities.policy.PolicyService} publishes versions to OPA (OPA compiles
 * first, then the database records) and turns OPA answers into {@link
 * dev.gitopshq.activities.policy.PolicyDecision}s that fail closed. {@link
 * dev.gitopshq.activities.policy.FreezeService} stores freeze windows, keeps OPA's copy of them
 * (data, not input) current and asks {@code gitopshq.freeze} whether a deployment is frozen.
 */
package dev.gitopshq.activities.policy;

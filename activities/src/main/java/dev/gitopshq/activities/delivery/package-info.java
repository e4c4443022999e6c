/**
 * The delivery object model in PostgreSQL (organization environments, tenants, charts, bundles,
 * bases; projects with their environments, tenants, workloads, values, variables and bindings), the
 * project configuration snapshot, and the delivery generation activities.
 */
package dev.gitopshq.activities.delivery;

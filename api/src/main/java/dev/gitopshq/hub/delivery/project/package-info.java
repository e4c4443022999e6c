/**
 * Projects and their configuration: environments, tenants, workloads, values, variables, bindings.
 */
package dev.gitopshq.hub.delivery.project;

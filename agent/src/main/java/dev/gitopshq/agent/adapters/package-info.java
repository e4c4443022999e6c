/**
 * The runtime adapters (capability {@code adapter.wire}): {@code AdapterWiring} makes the cluster
 * hold exactly the Flux or Argo CD objects the hub's bindings ask for ({@code AdapterObjects}, with
 * the tenants' RBAC from {@code TenantRules}), and {@code ReconcileRequests} asks them to reconcile
 * a branch now. The job runner ({@code dev.gitopshq.agent.jobs}) runs the wiring one request at a
 * time and the reconcile requests on the live-read threads.
 */
package dev.gitopshq.agent.adapters;

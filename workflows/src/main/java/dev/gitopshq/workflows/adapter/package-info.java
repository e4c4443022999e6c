/**
 * Wiring runtime adapters: one durable workflow per cluster makes its agent hold exactly the Flux
 * or Argo CD objects its bindings need, whenever a binding, a deploy branch, the project's fence,
 * the cluster's adapter setting or the agent's connection changes.
 */
package dev.gitopshq.workflows.adapter;

/**
 * The hub's side of wiring runtime adapters: which (project, environment, tenant) each cluster
 * delivers through Flux or Argo CD, the deploy tokens its adapter reads with, and what the agent
 * reported when it made the adapter's objects.
 */
package dev.gitopshq.activities.adapter;

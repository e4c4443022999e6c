/**
 * The delivery object model over REST: organization environments, tenants, charts, manifest
 * bundles, Kustomize bases and variables; projects with their environments, tenants, workloads,
 * values, variables and bindings. Every project configuration change goes through {@link
 * dev.gitopshq.hub.delivery.ProjectChanges}: one transaction, one commit of {@code config/} on the
 * project's main branch, then delivery generation. Also the image-update webhook.
 */
package dev.gitopshq.hub.delivery;

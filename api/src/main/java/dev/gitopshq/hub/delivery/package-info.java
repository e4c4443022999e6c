/**
 * The delivery object model over REST. This package holds what its parts share: {@link
 * dev.gitopshq.hub.delivery.ProjectChanges}, through which every project configuration change goes
 * (one transaction, one commit of {@code config/} on the project's main branch, then delivery
 * generation), the author of a change, the field checks and the shared views. The parts depend on
 * this package and never on each other, except image updates, which change a project:
 *
 * <ul>
 *   <li>{@code resources}: organization environments, tenants, manifest bundles, Kustomize bases
 *       and variables;
 *   <li>{@code chart}: the Helm chart registry;
 *   <li>{@code project}: projects with their environments, tenants, workloads, values, variables
 *       and bindings;
 *   <li>{@code image}: the signed image-update webhook.
 * </ul>
 */
package dev.gitopshq.hub.delivery;

/** Organization resources: environments, tenants, manifest bundles, Kustomize bases, variables. */
package dev.gitopshq.hub.delivery.resources;

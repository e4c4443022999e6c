/** The signed image-update webhook: a CI pipeline sets a workload's image tag. */
package dev.gitopshq.hub.delivery.image;

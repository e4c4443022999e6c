/**
 * A cluster's Argo CD Applications over REST, read live through its agent (capability {@code
 * argocd.read}); Force Sync and Hard Refresh are the governed {@code sync} and {@code refresh}
 * commands.
 */
package dev.gitopshq.hub.argocd;

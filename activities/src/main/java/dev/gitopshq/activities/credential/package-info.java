/**
 * Credentials the hub syncs to clusters (capability {@code credential.sync}): their sealed values,
 * their assignments to clusters and namespaces, and the sync status per namespace.
 */
package dev.gitopshq.activities.credential;

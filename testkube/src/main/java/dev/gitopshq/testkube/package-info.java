/**
 * TestKube, a local Kubernetes API for tests and {@code make run}: the Fabric8 mock server in CRUD
 * mode with discovery, server-side tables and the Argo CD Application CRD, so that Fabric8 clients
 * and the real {@code kubectl} can both use it.
 */
package dev.gitopshq.testkube;

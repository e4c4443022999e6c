/**
 * What should exist: pure functions that compute the object a command wants from the object that is
 * there. No Kubernetes client here (the build's architecture test keeps it so); {@code
 * dev.gitopshq.agent.kube} makes it so.
 */
package dev.gitopshq.agent.model;

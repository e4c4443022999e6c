/**
 * The Helm chart repository the hub serves at {@code /charts}: the agent chart it was built with.
 */
package dev.gitopshq.hub.chartrepo;
